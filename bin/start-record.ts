// Which `marquee start` runs on a MARQUEE_HOME: its process id and addresses, written once it
// listens and removed when it stops, so that a second `start` on the same home can name it
// (docs/operation.md "Which database"): refused on the embedded database, said in a warning on
// DATABASE_URL. A record left by a process that is gone (killed, crashed) names nobody.
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { isRunning, writeFileAtomically } from '../runtime/files.ts';

export interface StartRecord {
  pid: number;
  /** The gateway's address, as start's banner prints it. */
  gateway: string;
  /** The admin port's: the admin API and the console. */
  console: string;
}

const recordFile = (home: string): string => join(home, 'start.json');

/** The start running on `home` other than this process, if any. */
export async function runningStart(home: string): Promise<StartRecord | undefined> {
  const text = await readFile(recordFile(home), 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  let record: StartRecord;
  try {
    record = JSON.parse(text) as StartRecord;
  } catch {
    return undefined;
  }
  return Number.isInteger(record.pid) && record.pid !== process.pid && isRunning(record.pid) ? record : undefined;
}

/** Records this process as `home`'s start; resolves to what removes the record, unless another start has replaced it since. */
export async function recordStart(home: string, addresses: Omit<StartRecord, 'pid'>): Promise<() => Promise<void>> {
  const file = recordFile(home);
  await writeFileAtomically(file, JSON.stringify({ pid: process.pid, ...addresses }), { fsync: false, mode: 0o600 });
  return async () => {
    const text = await readFile(file, 'utf8').catch(() => undefined);
    if (text !== undefined && (JSON.parse(text) as StartRecord).pid === process.pid) await rm(file, { force: true });
  };
}

/** `process 1234 (gateway http://…, console http://…/)`. */
export function describeStart(record: StartRecord): string {
  return `process ${record.pid} (gateway ${record.gateway}, console ${record.console}/)`;
}
