// A separate OS process changing the key file, as `marquee keys create` and `keys revoke` do:
//   node --import tsx key-file.script.ts <keys.json> create <organization id> <count>   (prints the ids)
//   node --import tsx key-file.script.ts <keys.json> revoke <key id>
// It exits once the change is done, which for a revocation means every gateway holding a lease
// on the file has applied it.
import { FileKeyStore } from '../../records/keys/file-store.ts';

const [path, command, ...rest] = process.argv.slice(2);
const usage = 'usage: <keys.json> create <organization id> <count> | <keys.json> revoke <key id>';
if (path === undefined) throw new Error(usage);
const store = new FileKeyStore(path);
if (command === 'create' && rest.length === 2) {
  const [organizationId, count] = rest as [string, string];
  for (let i = 0; i < Number(count); i++) {
    const { record } = await store.create({ organizationId, label: `process ${process.pid} #${i}`, origins: [] });
    process.stdout.write(`${record.id}\n`);
  }
} else if (command === 'revoke' && rest.length === 1) {
  if (!(await store.revoke(rest[0]!, new Date()))) throw new Error(`no key ${rest[0]}`);
} else {
  throw new Error(usage);
}
