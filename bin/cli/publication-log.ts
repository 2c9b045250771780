// checkpoint: the publication log's signed checkpoint (bin/commands/publication-log.ts).
import type { Command } from 'commander';
import type { Config } from '../config.ts';

const commands = () => import('../commands/publication-log.ts');

export function registerPublicationLogCommands(program: Command, config: () => Config): void {
  program
    .command('checkpoint')
    .description(
      "the publication log's latest signed checkpoint (its size and root hash, a C2SP signed note), written first to the store if the log grew since the latest; exit 1 without a log or a signing key",
    )
    .option('--backfill', 'first log every manifest and state record in the store that the log does not know (history published before the log existed), oldest first')
    .option('--json', 'print origin, size, rootHash, keyId, storeKey and the note as JSON (with --since, and the consistency proof)')
    .option('--since <file>', 'prove the latest checkpoint extends this kept one (exit 1, saying why, when the log was rewritten or forked since)')
    .option('--proof <file>', 'with --since: write that consistency proof to this file, for examples/verify-publication-log.mjs consistency')
    .action(async (options: { backfill?: boolean; json?: boolean; since?: string; proof?: string }) => (await commands()).checkpointCommand(config(), options));
}
