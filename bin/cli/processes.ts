// start, serve, builder: the long-running commands (bin/processes.ts).
import type { Command } from 'commander';
import type { Config } from '../config.ts';

const processes = () => import('../processes.ts');

export function registerProcessCommands(program: Command, config: () => Config): void {
  program
    .command('start')
    .description('everything in one process on embedded defaults: migrate, seed the sample data on the first run, build, serve, schedule and listen')
    .option('--sample', 'load the sample data into an empty DATABASE_URL too (the embedded database gets it on its first run anyway)')
    .action(async (options: { sample?: boolean }) => (await processes()).startCommand(config(), options));
  program
    .command('serve')
    .description('the gateway on PORT (8080); GET /healthz answers 200 once ready')
    .action(async () => (await processes()).serveCommand(config()));
  program
    .command('builder')
    .description('scheduled builds (BUILD_SCHEDULE) plus change-triggered builds')
    .action(async () => (await processes()).builderCommand(config()));
}
