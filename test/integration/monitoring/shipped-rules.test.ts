// deploy/prometheus/ as promtool (Debian's prometheus package) judges it: the rule files are valid,
// their unit tests pass, every alert is tested both firing and silent, and the example
// configuration, with its credential files in place, loads with the rules and target files it names.
import { execFile } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PROMTOOL, SHIPPED } from './prometheus-server.ts';

function promtool(args: string[], cwd: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(PROMTOOL, args, { cwd }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, output: `${stdout}${stderr}` });
    });
  });
}

let copy: string;
beforeAll(async () => {
  copy = await mkdtemp(join(tmpdir(), 'marquee-promtool-'));
  await cp(SHIPPED, copy, { recursive: true });
});
afterAll(async () => {
  await rm(copy, { recursive: true, force: true });
});

it('finds the recording and alert rules valid', async () => {
  const checked = await promtool(['check', 'rules', 'recording-rules.yml', 'alert-rules.yml'], SHIPPED);
  expect(checked.code, checked.output).toBe(0);
  expect(checked.output.match(/SUCCESS: \d+ rules found/g)).toHaveLength(2);
});

it("passes the alerts' unit tests", async () => {
  const tested = await promtool(['test', 'rules', 'alert-rules.test.yml'], SHIPPED);
  expect(tested.code, tested.output).toBe(0);
  expect(tested.output).toContain('SUCCESS');
});

it('tests every alert firing and every alert silent', async () => {
  const rules = await readFile(join(SHIPPED, 'alert-rules.yml'), 'utf8');
  const tests = await readFile(join(SHIPPED, 'alert-rules.test.yml'), 'utf8');
  const alerts = [...rules.matchAll(/^\s+- alert: (\w+)$/gm)].map((match) => match[1]!);
  expect(alerts.length).toBeGreaterThanOrEqual(8);
  // Each case of the test file: `alertname: X` then `exp_alerts: []` (silent) or a list of alerts (firing).
  const cases = [...tests.matchAll(/alertname: (\w+)\n\s+exp_alerts:( \[\])?\n/g)].map((match) => ({ alert: match[1]!, firing: match[2] === undefined }));
  const untested = alerts.flatMap((alert) =>
    [true, false].filter((firing) => !cases.some((tested) => tested.alert === alert && tested.firing === firing)).map((firing) => `${alert} ${firing ? 'firing' : 'silent'}`),
  );
  expect(untested).toEqual([]);
  expect(cases.filter((tested) => !alerts.includes(tested.alert))).toEqual([]);
});

it('loads the example configuration with its rules and target files', async () => {
  // The two credential files the example names are the operator's to write (never shipped).
  await writeFile(join(copy, 'gateway-token'), 'a-gateway-admin-token\n', { mode: 0o600 });
  await writeFile(join(copy, 'builder-credential'), 'mqa_an-auditor-credential\n', { mode: 0o600 });
  const checked = await promtool(['check', 'config', 'prometheus.example.yml'], copy);
  expect(checked.code, checked.output).toBe(0);
  expect(checked.output).toContain('SUCCESS');
});
