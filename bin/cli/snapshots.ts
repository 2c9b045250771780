// history, diff, show, gc, audit, verify, signing-key: the auditors' and the store's commands (bin/commands/snapshots.ts).
import { parseZonedInstant, ZONED_INSTANT_EXAMPLE } from '../../runtime/instant.ts';
import type { Command } from 'commander';
import type { Config } from '../config.ts';
import { InvalidArgumentError } from 'commander';
import { DEFAULT_GRACE_MINUTES } from '../../builder/retention.ts';
import { UsageError } from '../usage.ts';
import { minutes, wholeNumber } from './arguments.ts';

const days = (value: string): number => {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('must be a whole number of days');
  return Number(value);
};

const instant = (value: string): Date => {
  const at = parseZonedInstant(value);
  if (at === undefined) throw new InvalidArgumentError(`must be an ISO 8601 instant with a zone, e.g. ${ZONED_INSTANT_EXAMPLE}`);
  return at;
};

const commands = () => import('../commands/snapshots.ts');

export function registerSnapshotCommands(program: Command, config: () => Config): void {
  program
    .command('history')
    .description("an organization's snapshots and state changes (suspended, closed, reactivated), newest first")
    .requiredOption('--org <id|slug>', 'the organization')
    .option('--json', 'print the result as JSON')
    .action(async (options: { org: string; json?: boolean }) => (await commands()).historyCommand(config(), options));
  program
    .command('diff')
    .description('what changed between two snapshots ("current" names the current one)')
    .requiredOption('--org <id|slug>', 'the organization')
    .argument('[from]')
    .argument('[to]')
    .option('--since <instant>', 'compare the snapshot current at this instant with the current one (instead of FROM and TO)', instant)
    .option('--json', 'print the result as JSON')
    .action(async (from: string | undefined, to: string | undefined, options: { org: string; since?: Date; json?: boolean }) => {
      if (options.since !== undefined ? from !== undefined || to !== undefined : from === undefined || to === undefined) {
        throw new UsageError('give either FROM and TO, or --since INSTANT');
      }
      return (await commands()).diffCommand(config(), { ...options, from, to });
    });
  program
    .command('show')
    .description('what the integration API answered for PATH (below /api/integration/v1, e.g. "/events?timing=past") at an instant')
    .requiredOption('--org <id|slug>', 'the organization')
    .requiredOption('--at <instant>', 'ISO 8601 instant with a zone, e.g. 2026-03-01T12:00:00Z', instant)
    .option(
      '--evidence',
      "print, with the body, the snapshot id, manifest hash, signature and ETag behind it, and the publication log's inclusion proof of that manifest with the checkpoint it is proved against (JSON)",
    )
    .argument('<path>')
    .action(async (path: string, options: { org: string; at: Date; evidence?: boolean }) => (await commands()).showCommand(config(), { ...options, path }));
  program
    .command('verify')
    .description(
      "check an organization's history from the current pointer back: every manifest's hash, signature, link and contentHash, every object's hash, and that an organization the platform database records as built into the store has a history there; exit 1 at the first break, or when the store is missing, unreadable or empty",
    )
    .option('--org <id|slug>', 'the organization')
    .option('--all', 'every organization in the store and every one the platform database knows')
    .option('--store-only', 'check the store alone, without the platform database: an organization whose whole history was removed is not seen')
    .option(
      '--since <checkpoint-file>',
      'a publication log checkpoint kept earlier (as `marquee checkpoint` prints it): check its signature, that the log extends it, and that everything logged since is in the store',
    )
    .option('--json', 'print the result as JSON')
    .action(async (options: { org?: string; all?: boolean; storeOnly?: boolean; since?: string; json?: boolean }) => {
      if ((options.org === undefined) === (options.all !== true)) throw new UsageError('give either --org ID|SLUG or --all');
      if (options.since !== undefined && options.storeOnly) throw new UsageError('--since checks the publication log, in the platform database: not with --store-only');
      return (await commands()).verifyCommand(config(), options);
    });
  program
    .command('signing-key')
    .description('the key builders sign history with (SNAPSHOT_SIGNING_KEY)')
    .command('create')
    .description('write a new Ed25519 signing key (PKCS#8 PEM, readable by its owner only) to FILE, which must not exist')
    .argument('<file>')
    .option('--group <group>', "also readable by this group (0640), the builders' service account's (root keeps the key, the builders read it)")
    .action(async (file: string, options: { group?: string }) => (await commands()).signingKeyCreateCommand(file, options));
  program
    .command('gc')
    .description('apply retention: keep snapshots younger than D days, at least the newest N per organization, the current one and those replaced within the grace period')
    .option('--keep <n>', 'snapshots to keep at least (default SNAPSHOT_RETENTION, 50)', wholeNumber)
    .option('--days <d>', 'keep every snapshot younger than this (default SNAPSHOT_RETENTION_DAYS, 90)', days)
    .option('--grace-minutes <n>', 'spare unreferenced objects younger than this, and snapshots replaced less long ago', minutes, DEFAULT_GRACE_MINUTES)
    .option('--dry-run', 'report what would be deleted; delete nothing')
    .option('--store-only', 'prune without the platform database: its publication log does not record the removals, and verify then reports each as a publication missing')
    .option('--json', 'print the report as JSON')
    .action(async (options: { keep?: number; days?: number; graceMinutes: number; dryRun?: boolean; storeOnly?: boolean; json?: boolean }) =>
      (await commands()).gcCommand(config(), options),
    );

  program
    .command('audit')
    .description(
      "scan every published object for other addresses, other organizations' ids and slugs, orphans and missing or corrupt objects, and check the history as verify does; exit 1 on findings, or when the store is missing, unreadable or empty",
    )
    .option('--grace-minutes <n>', 'unreferenced objects younger than this are not orphans yet (a build may be publishing them)', minutes, DEFAULT_GRACE_MINUTES)
    .option('--store-only', 'check the store alone, without the platform database: an organization whose whole history was removed is not seen')
    .option('--json', 'print the report as JSON')
    .action(async (options: { graceMinutes: number; storeOnly?: boolean; json?: boolean }) => (await commands()).auditCommand(config(), options));
}
