// `npm start` runs `bin/marquee start`: on an empty MARQUEE_HOME it migrates, seeds, builds,
// serves, and prints a demo key with a curl line that works exactly as printed.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { marquee, marqueeProcess } from '../../support/cli.ts';

let home: string;
beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'marquee-start-'));
});
afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

const shell = (command: string) =>
  new Promise<{ code: number; stdout: string }>((resolve) => {
    execFile('sh', ['-c', command], (error, stdout) => resolve({ code: error ? 1 : 0, stdout }));
  });

it('starts from nothing and prints a curl line that works as printed; a restart prints the same key', async () => {
  const first = await marqueeProcess(['start'], { MARQUEE_HOME: home, PORT: '0' }, /try: (curl .*)\n/);
  let key: string;
  try {
    const output = first.output();
    expect(output).toContain('sample data loaded: nordic-dev, pacific-oss, harbor-games, old-town-meetups');
    expect(output).toContain(`built 4 organizations into ${home}/snapshots (2 published, 2 suspended)`);
    key = /demo key for nordic-dev: (mqk_\w+)/.exec(output)![1]!;
    const curl = await shell(first.match[1]!);
    expect(curl.code).toBe(0);
    const page = JSON.parse(curl.stdout);
    expect(page).toMatchObject({ page: 1, pageSize: 20, hasMore: false });
    expect(page.items.length).toBeGreaterThan(0);
    expect(page.items.every((event: { timing: string }) => event.timing === 'upcoming')).toBe(true);
    // The embedded database belongs to the running start: another command is refused, not let in to corrupt it.
    const beside = await marquee(['build'], { MARQUEE_HOME: home });
    expect(beside.code).toBe(1);
    expect(beside.stderr).toContain(`is in use by process ${first.child.pid}`);
  } finally {
    await first.stop();
  }
  const again = await marqueeProcess(['start'], { MARQUEE_HOME: home, PORT: '0' }, /try: (curl .*)\n/);
  try {
    expect(again.output()).not.toContain('sample data loaded');
    expect(again.output()).toContain(`demo key for nordic-dev: ${key}`);
    expect((await shell(again.match[1]!)).code).toBe(0);
  } finally {
    await again.stop();
  }
});
