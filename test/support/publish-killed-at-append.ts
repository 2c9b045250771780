// Run as a separate process (`node --import tsx test/support/publish-killed-at-append.ts STORE
// DATABASE_URL KEY.pem INPUT.json`): a builder that is about to die between its manifest and its
// publication log append. It publishes one snapshot into the directory STORE, signed by the key in
// KEY.pem and logged in DATABASE_URL's publication log, and when the publish asks the log to append
// the manifest's leaf (builder/publish.ts: the manifest is in the store by then), it prints
// "appending" and waits for good, never appending: the moment for the test to SIGKILL it.
import { readFile } from 'node:fs/promises';
import { publishSnapshot } from '../../builder/publish.ts';
import { openPostgres } from '../../records/database/postgres.ts';
import { databasePublicationLog, type PublicationLog } from '../../records/publication-log/log-store.ts';
import { signerFromPem } from '../../snapshot/signing.ts';
import { DirectoryStore } from '../../snapshot/stores/directory.ts';

const [location, databaseUrl, keyPath, inputPath] = process.argv.slice(2);
if (!location || !databaseUrl || !keyPath || !inputPath) throw new Error('usage: publish-killed-at-append.ts STORE DATABASE_URL KEY.pem INPUT.json');
const input = JSON.parse(await readFile(inputPath, 'utf8')) as Omit<Parameters<typeof publishSnapshot>[1], 'now' | 'signer' | 'publicationLog'> & { now: string };
const db = await openPostgres(databaseUrl);
const publicationLog: PublicationLog = {
  ...databasePublicationLog(db),
  append: () => {
    process.stdout.write('appending\n');
    // Kept alive until killed: an unsettled promise alone would let the process end.
    setInterval(() => {}, 60_000);
    return new Promise<never>(() => {});
  },
};
await publishSnapshot(new DirectoryStore(location), {
  ...input,
  now: new Date(input.now),
  signer: signerFromPem(await readFile(keyPath, 'utf8'), keyPath),
  publicationLog,
});
process.stdout.write('published, which it should never have\n');
