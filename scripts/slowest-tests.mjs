// Where a run's time went, from vitest's JSON report (scripts/test.sh writes .test-output/vitest.json
// for the machine's Node and .test-output/vitest-lts.json for Node 26): the wall time from the first
// file's start to the last one's end, the files' summed time, and the slowest files with theirs.
//
//   node scripts/slowest-tests.mjs [REPORT] [COUNT]    # defaults: .test-output/vitest-lts.json 20
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

const [path = '.test-output/vitest-lts.json', countText = '20'] = process.argv.slice(2);
const report = JSON.parse(readFileSync(path, 'utf8'));
const files = (report.testResults ?? []).map((file) => ({
  name: relative(process.cwd(), file.name),
  seconds: (file.endTime - file.startTime) / 1000,
  tests: (file.assertionResults ?? []).length,
}));
if (files.length === 0) throw new Error(`${path}: no test files`);
const first = Math.min(...report.testResults.map((file) => file.startTime));
const last = Math.max(...report.testResults.map((file) => file.endTime));
const sum = files.reduce((total, file) => total + file.seconds, 0);
console.log(`${path}: ${files.length} files, ${report.numTotalTests} tests; ${((last - first) / 1000).toFixed(0)} s from the first start to the last end, ${sum.toFixed(0)} s summed`);
for (const file of files.sort((a, b) => b.seconds - a.seconds).slice(0, Number(countText))) {
  console.log(`${file.seconds.toFixed(1).padStart(7)} s  ${file.name} (${file.tests} tests)`);
}
