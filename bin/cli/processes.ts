// start, serve, builder: the long-running commands (bin/processes.ts).
import type { Command } from 'commander';
import type { Config, ConfigNeeds } from '../config.ts';

const processes = () => import('../processes.ts');

/**
 * Each reads its configuration, with the checks of what it does (ConfigNeeds), before it loads its
 * modules: a bad variable is named at once, before hundreds of milliseconds of imports, and before
 * anything is made.
 */
export function registerProcessCommands(program: Command, config: (needs?: ConfigNeeds) => Config): void {
  program
    .command('start')
    .description('everything in one process on embedded defaults: migrate, seed the sample data on the first run, build, serve, schedule and listen')
    .option('--sample', 'load the sample data into an empty DATABASE_URL too (the embedded database gets it on its first run anyway)')
    .action(async (options: { sample?: boolean }) => {
      const checked = config({ builds: true, serves: true });
      return (await processes()).startCommand(checked, options);
    });
  program
    .command('serve')
    .description('the gateway on PORT (8080); GET /readyz answers 200 once ready, /healthz while alive')
    .action(async () => {
      const checked = config({ serves: true });
      return (await processes()).serveCommand(checked);
    });
  program
    .command('builder')
    .description('scheduled builds (BUILD_SCHEDULE) plus change-triggered builds')
    .action(async () => {
      const checked = config({ builds: true });
      return (await processes()).builderCommand(checked);
    });
}
