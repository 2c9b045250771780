// Where a run's time went: the slowest test files with their own time (import, hooks, tests), from
// what test/support/file-times.ts wrote for scripts/test.sh — .test-output/file-times.json for the
// machine's Node, .test-output/file-times-lts.json for Node 26 — and the summed time per project.
// (The wall time of each run is the line "suites on node …: N s" that scripts/test.sh prints.)
//
//   node scripts/slowest-tests.mjs [FILE_TIMES] [COUNT]    # defaults: .test-output/file-times-lts.json 20
import { readFileSync } from 'node:fs';

const [path = '.test-output/file-times-lts.json', countText = '20'] = process.argv.slice(2);
const files = JSON.parse(readFileSync(path, 'utf8'));
if (files.length === 0) throw new Error(`${path}: no test files`);
const projects = new Map();
for (const { project, seconds } of files) projects.set(project, (projects.get(project) ?? 0) + seconds);
console.log(`${path}: ${files.length} files; summed per project: ${[...projects].map(([project, seconds]) => `${project} ${seconds.toFixed(0)} s`).join(', ')}`);
for (const file of [...files].sort((a, b) => b.seconds - a.seconds).slice(0, Number(countText))) {
  console.log(`${file.seconds.toFixed(1).padStart(7)} s  ${file.file} (${file.project}${file.state === 'passed' ? '' : `, ${file.state}`})`);
}
