// The build orchestrator: read → project → validate → serialize → publish → announce, one
// organization at a time (a few in parallel), so memory stays bounded by the concurrency and
// never by the size of the platform. The output store is a parameter: tests build into memory.
import type { PublishChannel } from '../snapshot/notifications.ts';
import type { BuildTrigger } from '../snapshot/manifest.ts';
import type { SchemaSet } from '../snapshot/schemas.ts';
import type { SnapshotStore } from '../snapshot/store.ts';
import { BuildError, describeBuildError, ProjectionError, PublishError, ReadError } from './errors.ts';
import type { OrganizationStatus, PlatformSource } from './platform/rows.ts';
import { projectOrganization, resourcesOf } from './projection/index.ts';
import { publish, type PublishResult } from './publish.ts';
import { serializeResources } from './serialize.ts';
import { validateResources } from './validate.ts';

export interface BuildContext {
  source: PlatformSource;
  store: SnapshotStore;
  schemas: SchemaSet;
  publicBaseUrl: string;
  builderVersion: string;
  /** Told after every publish that changed what an organization serves. */
  channel?: PublishChannel;
  /** Called with the ids of organizations whose pointer changed (CDN invalidation). */
  onPointersChanged?: (organizationIds: string[]) => Promise<void>;
  now?: () => Date;
  /** Organizations built at once. */
  concurrency?: number;
}

export interface OrganizationResult {
  id: string;
  slug: string;
  result: PublishResult | 'failed';
  snapshotId?: string;
  error?: string;
  objectsWritten: number;
}

export interface BuildRequest {
  /** Organization ids; all organizations when absent. */
  organizationIds?: readonly string[];
  trigger: BuildTrigger;
  onProgress?: (done: number, total: number, last: OrganizationResult) => void;
}

export async function buildOrganizations(context: BuildContext, request: BuildRequest): Promise<OrganizationResult[]> {
  const all = await context.source.listOrganizations();
  const wanted = request.organizationIds ? new Set(request.organizationIds) : undefined;
  const targets = wanted ? all.filter((org) => wanted.has(org.id)) : all;
  const results: OrganizationResult[] = new Array(targets.length);
  let next = 0;
  let done = 0;
  const worker = async (): Promise<void> => {
    for (let index = next++; index < targets.length; index = next++) {
      const target = targets[index]!;
      results[index] = await buildOrganization(context, target, request.trigger);
      request.onProgress?.(++done, targets.length, results[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(context.concurrency ?? 4, targets.length) }, worker));
  const changed = results.filter((r) => r.result === 'published' || r.result === 'suspended').map((r) => r.id);
  if (changed.length > 0) await context.onPointersChanged?.(changed);
  return results;
}

/** Builds one organization; a failure is a result naming the organization, resource and reason. */
export async function buildOrganization(
  context: BuildContext,
  target: { id: string; slug: string; status: OrganizationStatus },
  trigger: BuildTrigger,
): Promise<OrganizationResult> {
  const started = performance.now();
  const now = context.now?.() ?? new Date();
  try {
    const common = { organizationId: target.id, organizationSlug: target.slug, trigger, now, builderVersion: context.builderVersion };
    let outcome;
    if (target.status !== 'active') {
      outcome = await publishStep(context, { ...common, state: target.status, objects: [], slugs: {}, durationMs: 0 });
    } else {
      const data = await step(ReadError, target.id, 'read', () => context.source.readOrganization(target.id));
      if (!data) throw new ReadError(`organization ${target.id} (${target.slug}) no longer exists`, target.id);
      const projection = await step(ProjectionError, target.id, 'project', async () =>
        projectOrganization(data, { publicBaseUrl: context.publicBaseUrl }));
      const resources = resourcesOf(projection);
      validateResources(context.schemas, target.id, resources);
      const objects = serializeResources(resources);
      outcome = await publishStep(context, {
        ...common, state: 'active', objects, slugs: projection.slugs, durationMs: performance.now() - started,
      });
    }
    if (outcome.result !== 'unchanged') await context.channel?.announce(target.id);
    return {
      id: target.id, slug: target.slug, result: outcome.result, objectsWritten: outcome.objectsWritten,
      ...(outcome.snapshotId ? { snapshotId: outcome.snapshotId } : {}),
    };
  } catch (error) {
    return { id: target.id, slug: target.slug, result: 'failed', error: describeBuildError(error), objectsWritten: 0 };
  }
}

function publishStep(context: BuildContext, input: Parameters<typeof publish>[1]) {
  return step(PublishError, input.organizationId, 'publish', () => publish(context.store, input));
}

/** Runs one stage, wrapping an unexpected failure with the organization and the stage. */
async function step<T>(
  Kind: new (message: string, organizationId: string, resource?: string, options?: { cause?: unknown }) => BuildError,
  organizationId: string,
  stage: string,
  run: () => Promise<T>,
): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof BuildError) throw error;
    throw new Kind(`organization ${organizationId}: ${stage} failed`, organizationId, undefined, { cause: error });
  }
}
