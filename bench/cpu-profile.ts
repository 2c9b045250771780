// Summarizes a V8 CPU profile (.cpuprofile, from node --cpu-prof): the functions and the files
// that took the most time themselves (self time), so that "where does a request's time go" has
// an answer in numbers.
//
//   node --import tsx bench/cpu-profile.ts FILE.cpuprofile [--top 40]
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Self time by a key of the node, as shares of every sample, largest first. */
export function selfTimes(profile: Profile, keyOf: (node: ProfileNode) => string): Array<{ key: string; share: number }> {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const totals = new Map<string, number>();
  let all = 0;
  profile.samples.forEach((id, index) => {
    const delta = profile.timeDeltas[index] ?? 0;
    const key = keyOf(byId.get(id)!);
    totals.set(key, (totals.get(key) ?? 0) + delta);
    all += delta;
  });
  return [...totals].map(([key, time]) => ({ key, share: time / all })).sort((a, b) => b.share - a.share);
}

const shortUrl = (url: string) => url.replace(/^file:\/\/.*?\/(node_modules|dist)\//, '$1/') || '(native)';

if (process.argv[1] !== undefined && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  const [file, ...rest] = process.argv.slice(2);
  if (file === undefined) throw new Error('usage: bench/cpu-profile.ts FILE.cpuprofile [--top 40]');
  const top = rest[0] === '--top' ? Number(rest[1]) : 40;
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const print = (title: string, rows: Array<{ key: string; share: number }>) => {
    console.log(`\n${title}`);
    for (const { key, share } of rows.slice(0, top)) console.log(`${(share * 100).toFixed(1).padStart(5)}%  ${key}`);
  };
  print(
    'self time by function',
    selfTimes(profile, ({ callFrame: f }) => `${f.functionName || '(anonymous)'}  ${shortUrl(f.url)}:${f.lineNumber + 1}`),
  );
  print(
    'self time by file',
    selfTimes(profile, ({ callFrame: f }) => shortUrl(f.url)),
  );
}
