// Where a served embedded database can be reached, next to its lock file: written by start while
// it serves it (embedded-supervisor.ts), read by every other command (database-backends.ts).
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomically } from '../../runtime/files.ts';

export interface ServedDatabase {
  /** postgresql://postgres@/postgres?host=DIR: node-postgres and psql both take it. */
  url: string;
  /** start's process, which supervises the database's. */
  pid: number;
  schema: string;
  marqueeSchema: string;
}

export const servedFile = (dataDir: string): string => path.join(dataDir, 'served.json');

export async function advertiseServed(dataDir: string, served: ServedDatabase): Promise<void> {
  await writeFileAtomically(servedFile(dataDir), JSON.stringify(served), { fsync: false, mode: 0o600 });
}

/** The advertisement of a process serving `dataDir`, when that process is alive. */
export async function servedBy(dataDir: string): Promise<ServedDatabase | undefined> {
  const text = await readFile(servedFile(dataDir), 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  const served = JSON.parse(text) as ServedDatabase;
  try {
    process.kill(served.pid, 0);
    return served;
  } catch {
    return undefined;
  }
}

/** The URL of a socket directory: `host=` names the directory, in which both look for `.s.PGSQL.5432`. */
export function socketUrl(directory: string): string {
  return `postgresql://postgres@/postgres?host=${encodeURIComponent(directory)}`;
}
