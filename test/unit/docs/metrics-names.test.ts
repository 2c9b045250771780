// The metrics the docs name are the metrics Marquee registers: every process's metric modules are
// registered on one registry here, as bin/ registers them on a process's, and every
// `marquee_…` name a guide gives is one of them or one of Marquee's relations (the docs name
// both); the metrics lists (operation.md's, design.md's) name every metric registered. A metric
// renamed, added or dropped on one side fails here.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { loginThrottle } from '../../../admin/login-throttle.ts';
import { registerFleetFigures } from '../../../builder/fleet-figures.ts';
import { registerBuilderMetrics } from '../../../builder/metrics.ts';
import type { BuildRuns } from '../../../builder/runs/build-runs.ts';
import { registerWebhookMetrics } from '../../../builder/webhooks/webhook-metrics.ts';
import { gatewayMetrics } from '../../../gateway/metrics.ts';
import { registerBackendMetrics } from '../../../runtime/backend-metrics.ts';
import { BackendStates } from '../../../runtime/backend-states.ts';
import { RecordingLog } from '../../support/recording-log.ts';
import { guides, ROOT, readGuide, sectionOf } from './docs-files.ts';

/** The names of every metric Marquee's processes register (Node's process metrics aside). */
function registeredMetrics(): Set<string> {
  const registry = new Registry();
  const log = new RecordingLog();
  const gateway = gatewayMetrics(registry);
  // Registered when the gateway is given what they read (bin/ does so at start).
  gateway.usage({ bytes: 0, dropped: 0 }, { pending: 0 });
  gateway.keysFromMemory(() => 0);
  registerBuilderMetrics(registry, { runs: { onFinished() {} } as unknown as BuildRuns });
  registerWebhookMetrics(registry);
  registerBackendMetrics(registry, new BackendStates());
  loginThrottle({ log, registry });
  const figures = registerFleetFigures(
    registry,
    { snapshotLag: async () => ({ oldestChangeMs: undefined, stale: 0 }), webhookBacklog: async () => 0, usageBatchesWaiting: async () => 0 },
    { log, intervalMs: 60_000 },
  );
  figures.stop();
  return new Set(registry.getMetricsAsArray().map((metric) => metric.name));
}

/** The migrations and their runner, which make Marquee's relations, sequences, indexes and triggers. */
function schemaFiles(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.(sql|ts)$/.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name));
}

/** Every `marquee_…` name the schema (and the platform's triggers, which notify `marquee_changes`) make or use. */
function namesInTheSchema(): Set<string> {
  const names = new Set<string>();
  for (const file of [...schemaFiles('records/schema'), ...schemaFiles('builder/platform')]) {
    for (const match of readFileSync(file, 'utf8').matchAll(/\bmarquee_[a-z0-9_]+/g)) names.add(match[0]);
  }
  return names;
}

/** The `marquee_…` names of a text, a histogram's series read as the histogram; `marquee_webhook_*` is a prefix, kept with its `*`. */
function marqueeNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const match of text.matchAll(/\bmarquee_[a-z0-9_]*[a-z0-9](_\*)?/g)) names.add(match[0].replace(/_(bucket|sum|count)$/, ''));
  return names;
}

/** Whether a name of the docs is a registered metric or a name of the schema, a prefix when it ends in `_*`. */
function exists(name: string): boolean {
  if (!name.endsWith('*')) return metrics.has(name) || schema.has(name);
  const prefix = name.slice(0, -1);
  return [...metrics, ...schema].some((known) => known.startsWith(prefix));
}

const metrics = registeredMetrics();
const schema = namesInTheSchema();

describe('the metrics of the docs', () => {
  it('registers the metrics this test reads (the registry is not empty)', () => {
    expect(metrics).toContain('marquee_gateway_requests_total');
    expect(metrics).toContain('marquee_builds_total');
  });

  it.each(guides())('%s names only metrics that are registered (or relations that exist)', (path) => {
    expect([...marqueeNames(readGuide(path))].filter((name) => !exists(name))).toEqual([]);
  });

  it("the metrics lists (operation.md's, and design.md's for what that one lacks) name every metric registered", () => {
    const listed = new Set([
      ...marqueeNames(sectionOf(readGuide('docs/operation.md'), 'Request ids, logs and metrics')),
      ...marqueeNames(sectionOf(readGuide('docs/design.md'), 'Admin API and console')),
    ]);
    expect([...metrics].filter((name) => !listed.has(name))).toEqual([]);
  });
});
