// Run as a separate process (`node --import tsx test/support/publish-in-child.ts DIR INPUT.json`):
// publishes one snapshot into a directory store, like a builder process would, and prints
// "published" once the pointer is in place. Used to prove cross-process freshness.
import { readFile } from 'node:fs/promises';
import { publishSnapshot } from '../../builder/publish.ts';
import { DirectoryStore } from '../../snapshot/stores/directory.ts';

const [dir, inputPath] = process.argv.slice(2);
if (!dir || !inputPath) throw new Error('usage: publish-in-child.ts DIR INPUT.json');
const input = JSON.parse(await readFile(inputPath, 'utf8')) as Parameters<typeof publishSnapshot>[1] & { now: string };
const outcome = await publishSnapshot(new DirectoryStore(dir), { ...input, now: new Date(input.now) });
process.stdout.write(`published ${outcome.snapshotId}\n`);
