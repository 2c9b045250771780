// Summarizes a V8 CPU profile (.cpuprofile, from node --cpu-prof) as shares of the time the
// process was busy (idle time left out): the functions and files that took the most time
// themselves (self), and the functions that were on the stack the most (inclusive: what they and
// everything they called took). So "where does a request's time go" has an answer in numbers.
//
//   node --import tsx bench/cpu-profile.ts FILE.cpuprofile [--top 40]
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

interface Share {
  key: string;
  share: number;
}

const NOT_BUSY = new Set(['(idle)', '(program)']);
const shortUrl = (url: string) => url.replace(/^file:\/\/.*?\/(node_modules|dist)\//, '$1/') || '(native)';
const functionOf = ({ callFrame: f }: ProfileNode) => `${f.functionName || '(anonymous)'}  ${shortUrl(f.url)}:${f.lineNumber + 1}`;
const fileOf = ({ callFrame: f }: ProfileNode) => shortUrl(f.url);

/** Busy time in ms, and self and inclusive shares of it by function, and self by file. */
function summarize(profile: Profile): { busyMs: number; selfByFunction: Share[]; selfByFile: Share[]; inclusive: Share[] } {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const selfFunction = new Map<string, number>();
  const selfFile = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let busy = 0;
  const add = (totals: Map<string, number>, key: string, time: number) => totals.set(key, (totals.get(key) ?? 0) + time);
  profile.samples.forEach((id, index) => {
    const node = byId.get(id)!;
    if (NOT_BUSY.has(node.callFrame.functionName)) return;
    const time = profile.timeDeltas[index] ?? 0;
    busy += time;
    add(selfFunction, functionOf(node), time);
    add(selfFile, fileOf(node), time);
    // Each function once per sample, however often it recurs on the stack.
    const onStack = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at)) onStack.add(functionOf(byId.get(at)!));
    for (const key of onStack) add(inclusive, key, time);
  });
  const shares = (totals: Map<string, number>) => [...totals].map(([key, time]) => ({ key, share: time / busy })).sort((a, b) => b.share - a.share);
  return { busyMs: busy / 1000, selfByFunction: shares(selfFunction), selfByFile: shares(selfFile), inclusive: shares(inclusive) };
}

const [file, ...rest] = process.argv.slice(2);
if (file === undefined) throw new Error('usage: bench/cpu-profile.ts FILE.cpuprofile [--top 40]');
const top = rest[0] === '--top' ? Number(rest[1]) : 40;
const summary = summarize(JSON.parse(readFileSync(file, 'utf8')) as Profile);
const print = (title: string, rows: Share[]) => {
  console.log(`\n${title}`);
  for (const { key, share } of rows.slice(0, top)) console.log(`${(share * 100).toFixed(1).padStart(5)}%  ${key}`);
};
console.log(`busy ${(summary.busyMs / 1000).toFixed(1)} s; shares below are of that`);
print('self time by function', summary.selfByFunction);
print('self time by file', summary.selfByFile);
print('inclusive time by function', summary.inclusive);
