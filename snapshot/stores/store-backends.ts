// Which snapshot store SNAPSHOT_STORE names: the one place that chooses a store backend. A backend
// is one file (its store class and a StoreBackend describing how it is named and opened) plus one
// line in STORE_BACKENDS; configuration, wiring and start-up know no backend by name.
import type { StoreBackend, StoreLocation, StoreSettingContext } from '../store.ts';
import { directoryBackend } from './directory.ts';
import { s3Backend } from './s3.ts';

/** Every backend, the one that takes a plain path first. */
const STORE_BACKENDS: readonly StoreBackend[] = [directoryBackend, s3Backend];

/** `scheme://…`: a URL naming a backend, as opposed to a directory path. */
const URL_SETTING = /^([a-z][a-z0-9+.-]*):\/\//i;

/**
 * SNAPSHOT_STORE (unset: `defaultDirectory`) as a location, and every problem with it and with the
 * variables of its backend or of the others, each message naming the variable; no location when
 * SNAPSHOT_STORE itself is at fault.
 */
export function parseStoreSetting(
  setting: string | undefined,
  defaultDirectory: string,
  context: StoreSettingContext,
): { location: StoreLocation | undefined; problems: string[] } {
  const scheme = setting === undefined ? undefined : URL_SETTING.exec(setting)?.[1];
  const backend = STORE_BACKENDS.find((candidate) => candidate.scheme === scheme);
  const problems: string[] = [];
  let location: StoreLocation | undefined;
  if (backend === undefined) {
    problems.push(`SNAPSHOT_STORE must be ${STORE_BACKENDS.map((candidate) => candidate.form).join(' or ')}, got ${JSON.stringify(setting)}`);
  } else {
    const parsed = backend.parse(setting ?? defaultDirectory, context);
    if ('problems' in parsed) problems.push(...parsed.problems);
    else location = parsed;
  }
  for (const other of STORE_BACKENDS) {
    if (other === backend) continue;
    for (const name of other.variables) {
      if (context.env[name]?.trim()) problems.push(`${name} is set, but SNAPSHOT_STORE is not an ${other.scheme}:// store`);
    }
  }
  return { location, problems };
}
