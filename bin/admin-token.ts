// Where ADMIN_TOKEN lives: in the environment (bin/config.ts), or, for `start` without one, in
// MARQUEE_HOME/admin-token, which start makes once (bin/processes.ts). The CLI's audit entries
// name it by a marker instead wherever a statement or an error would quote it (admin/trail/
// recorded-operations.ts): the token is the break-glass owner's, and auditors read the trail.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { KnownSecret } from '../records/trail/audit-entry.ts';
import type { Config } from './config.ts';

const MARKER = '[ADMIN_TOKEN]';

export function adminTokenFile(home: string): string {
  return join(home, 'admin-token');
}

/** ADMIN_TOKEN as a secret the trail names by its marker. */
export function adminTokenSecret(value: string): KnownSecret {
  return { value, marker: MARKER };
}

/** The tokens this command can know: the configured one, and start's in this MARQUEE_HOME, if there is one. */
export async function adminTokenSecrets(config: Pick<Config, 'adminToken' | 'home'>): Promise<KnownSecret[]> {
  const saved = (await readFile(adminTokenFile(config.home), 'utf8').catch(() => '')).trim();
  return [...new Set([config.adminToken, saved])].filter((token): token is string => token !== undefined && token !== '').map(adminTokenSecret);
}
