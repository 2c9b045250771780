// A separate OS process creating keys, like concurrent `marquee keys create` runs; prints the ids.
// Usage: node --import tsx create-keys.script.ts <keys.json> <organization id> <count>
import { FileKeyStore } from '../../records/keys/file-store.ts';

const [path, organizationId, count] = process.argv.slice(2);
if (path === undefined || organizationId === undefined || count === undefined) throw new Error('usage: <keys.json> <organization id> <count>');
const store = new FileKeyStore(path);
for (let i = 0; i < Number(count); i++) {
  const { record } = await store.create({ organizationId, label: `process ${process.pid} #${i}`, origins: [] });
  process.stdout.write(`${record.id}\n`);
}
