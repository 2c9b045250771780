// How Marquee starts PGlite, in a command's own process (pglite.ts) and in start's database process
// (embedded-child.ts) alike. PostgreSQL's initdb writes shared_buffers = 128MB into every data
// directory; in PGlite that pool is WebAssembly memory set up at each open, which made a third of
// the CPU every command spent opening the embedded database (1.6 s of CPU for an open, a query and
// a close on Node 26; 1.0 s with 32 MB, measured 2026-12-02: docs/development.md "Where the time
// goes"). The embedded database is the demo's and the tests' (production runs PostgreSQL): 32 MB
// holds the sample platform many times over, and a build of it was no slower (16 MB was, at times).
import { PGlite } from '@electric-sql/pglite';

const START_PARAMS = [...PGlite.defaultStartParams, '-c', 'shared_buffers=32MB'];

/**
 * A PGlite on `dataDir` (undefined: in memory), with Marquee's settings. `from`: an in-memory
 * database starts from this dump of a data directory (PGlite's dumpDataDir) instead of an initdb.
 */
export function createPglite(dataDir: string | undefined, from?: Blob): Promise<PGlite> {
  return PGlite.create(dataDir, { startParams: START_PARAMS, ...(from === undefined ? {} : { loadDataDir: from }) });
}
