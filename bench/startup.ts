// Start-up benchmark (`npm run bench:startup`): the wall time and peak RSS of `bin/marquee --help`
// (the compiled product in dist/) against `node -e 0` in the same run, and, for the record, the
// same CLI run from its TypeScript sources through tsx's loader (how it ran before dist/). Runs
// alternate so a noisy neighbour hits all three alike; medians are reported. Targets: ≤ 5× the
// wall time of `node -e 0`, ≤ 90 MB peak RSS. Not a timed test: it prints a table.
//
//   node --import tsx bench/startup.ts [--runs 15]
import { machine } from './machine.ts';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const runsAt = process.argv.indexOf('--runs');
const runs = runsAt === -1 ? 15 : Number(process.argv[runsAt + 1]);
if (!Number.isInteger(runs) || runs < 1) throw new Error('--runs takes a whole number ≥ 1');

// Peak RSS of the node process itself, reported at exit by a module preloaded through
// NODE_OPTIONS (which bin/marquee's exec'd node honours like any other).
const work = mkdtempSync(join(tmpdir(), 'marquee-startup-'));
const reporter = join(work, 'report-rss.mjs');
// biome-ignore lint/suspicious/noTemplateCurlyInString: the text is a module of its own, with a template literal in it
writeFileSync(reporter, "import fs from 'node:fs';\nprocess.on('exit', () => fs.appendFileSync(process.env.RSS_FILE, `${process.resourceUsage().maxRSS}\\n`));\n");

const subjects = [
  { name: 'node -e 0', command: process.execPath, args: ['-e', '0'] },
  { name: 'bin/marquee --help (dist/)', command: join(ROOT, 'bin/marquee'), args: ['--help'] },
  {
    name: 'bin/cli.ts --help via tsx (before)',
    command: process.execPath,
    args: ['--enable-source-maps', '--heap-growing-percent=50', '--import', 'tsx', join(ROOT, 'bin/cli.ts'), '--help'],
  },
];

const samples = subjects.map(() => ({ ms: [] as number[], rssMb: [] as number[] }));
for (let run = 0; run < runs; run++) {
  subjects.forEach((subject, i) => {
    const rssFile = join(work, `rss-${i}-${run}`);
    const started = process.hrtime.bigint();
    const result = spawnSync(subject.command, subject.args, {
      cwd: ROOT,
      env: { ...process.env, NODE_OPTIONS: `--import ${reporter}`, RSS_FILE: rssFile },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    if (result.status !== 0) throw new Error(`${subject.name} exited with ${result.status}: ${result.stderr}`);
    samples[i]!.ms.push(ms);
    samples[i]!.rssMb.push(Number(readFileSync(rssFile, 'utf8').trim()) / 1024);
  });
}
rmSync(work, { recursive: true, force: true });

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};
const reference = median(samples[0]!.ms);
console.log(machine());
console.log(`start-up, median of ${runs} runs each (alternating)`);
console.log('| command | wall time | × node -e 0 | peak RSS |');
console.log('|---|---|---|---|');
subjects.forEach((subject, i) => {
  const ms = median(samples[i]!.ms);
  console.log(`| ${subject.name} | ${ms.toFixed(0)} ms | ${(ms / reference).toFixed(2)}× | ${median(samples[i]!.rssMb).toFixed(0)} MB |`);
});
const product = samples[1]!;
const ok = median(product.ms) <= 5 * reference && median(product.rssMb) <= 90;
console.log(ok ? 'targets met: ≤ 5× node -e 0, ≤ 90 MB' : 'TARGETS MISSED: ≤ 5× node -e 0, ≤ 90 MB');
