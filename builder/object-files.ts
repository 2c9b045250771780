// An organization's objects as a listing of its objects' prefix shows them: each object is its
// JSON (`{hash}.json`) and the coded forms stored beside it (`{hash}.json.br`, `.json.gz`;
// snapshot/layout.ts), which retention keeps, spares and deletes as one and audit checks together.
import type { Coding } from '../snapshot/codings.ts';
import { objectOfName, objectPrefix } from '../snapshot/layout.ts';

/** The keys of one object: its JSON (undefined when only coded forms are listed) and its coded forms. */
export interface ObjectFiles {
  json: string | undefined;
  coded: Array<{ key: string; coding: Coding }>;
}

/** `keys` (a listing of objectPrefix(orgId)) by object hash, in the listing's order; a name of no object is left out. */
export function objectFiles(orgId: string, keys: readonly string[]): Map<string, ObjectFiles> {
  const prefix = objectPrefix(orgId);
  const objects = new Map<string, ObjectFiles>();
  for (const key of keys) {
    const name = objectOfName(key.slice(prefix.length));
    if (name === undefined) continue;
    let files = objects.get(name.hash);
    if (files === undefined) objects.set(name.hash, (files = { json: undefined, coded: [] }));
    if (name.coding === undefined) files.json = key;
    else files.coded.push({ key, coding: name.coding });
  }
  return objects;
}
