// start, serve, builder: the long-running commands (bin/processes.ts).
import type { Command } from 'commander';
import type { Config } from '../config.ts';

const processes = () => import('../processes.ts');

export function registerProcessCommands(program: Command, config: () => Config): void {
  program
    .command('start')
    .description('everything in one process on embedded defaults: migrate and seed on first run, build, serve, schedule and listen')
    .action(async () => (await processes()).startCommand(config()));
  program
    .command('serve')
    .description('the gateway on PORT (8080); GET /healthz answers 200 once ready')
    .action(async () => (await processes()).serveCommand(config()));
  program
    .command('builder')
    .description('scheduled builds (BUILD_SCHEDULE) plus change-triggered builds')
    .action(async () => (await processes()).builderCommand(config()));
}
