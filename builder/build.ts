// The build orchestrator: read → project → validate → serialize → publish → announce, one
// organization at a time (a few in parallel), so memory stays bounded by the concurrency and
// never by the size of the platform. The output store is a parameter: tests build into memory.
import type { PublishChannel } from '../snapshot/notifications.ts';
import type { BuildTrigger, OrganizationState } from '../snapshot/manifest.ts';
import type { SchemaSet } from '../snapshot/schemas.ts';
import type { SnapshotStore } from '../snapshot/store.ts';
import { describeError } from '../snapshot/errors.ts';
import { BuildError, type BuildStage } from './errors.ts';
import type { PlatformSource } from './platform/rows.ts';
import { projectOrganization, resourcesOf } from './projection/index.ts';
import { publish, type PublishOutcome, type PublishResult } from './publish.ts';
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
  /** When failed: one line naming the organization, the resource when known, and the reason with its causes. */
  error?: string;
  /** When failed: the stage, and the API path at fault when known. For logs; not part of `build --json`. */
  failure?: { stage: BuildStage | undefined; resource: string | undefined };
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

/**
 * Builds one organization. Never throws: a failure (a resource failing its schema, or a stage
 * that could not complete) is a result naming the organization, the resource and the reason, and
 * the organization keeps its previous snapshot.
 */
async function buildOrganization(context: BuildContext, target: { id: string; slug: string; status: OrganizationState }, trigger: BuildTrigger): Promise<OrganizationResult> {
  const started = performance.now();
  const now = context.now?.() ?? new Date();
  const failed = (error: string, stage: BuildStage | undefined, resource?: string): OrganizationResult => ({
    id: target.id,
    slug: target.slug,
    result: 'failed',
    error,
    failure: { stage, resource },
    objectsWritten: 0,
  });
  try {
    const common = { organizationId: target.id, organizationSlug: target.slug, trigger, now, builderVersion: context.builderVersion };
    let outcome: PublishOutcome;
    if (target.status !== 'active') {
      outcome = await publishStep(context, { ...common, state: target.status, objects: [], slugs: {}, durationMs: 0 });
    } else {
      const data = await step('read', target.id, () => context.source.readOrganization(target.id));
      if (!data) return failed(`organization ${target.id} (${target.slug}) no longer exists`, 'read');
      const projection = await step('project', target.id, async () => projectOrganization(data, { publicBaseUrl: context.publicBaseUrl }));
      const resources = resourcesOf(projection);
      const validation = validateResources(context.schemas, resources);
      if (!validation.valid) {
        return failed(`organization ${target.id}: resource ${validation.resource} fails schema ${validation.schema}: ${validation.reason}`, 'validate', validation.resource);
      }
      const objects = serializeResources(resources);
      outcome = await publishStep(context, {
        ...common,
        state: 'active',
        objects,
        slugs: projection.slugs,
        durationMs: performance.now() - started,
      });
    }
    const channel = context.channel;
    if (outcome.result !== 'unchanged' && channel) await step('announce', target.id, () => channel.announce(target.id));
    return {
      id: target.id,
      slug: target.slug,
      result: outcome.result,
      objectsWritten: outcome.objectsWritten,
      ...(outcome.snapshotId ? { snapshotId: outcome.snapshotId } : {}),
    };
  } catch (error) {
    if (error instanceof BuildError) return failed(error.describe(), error.stage, error.resource);
    return failed(`organization ${target.id}: ${describeError(error)}`, undefined);
  }
}

function publishStep(context: BuildContext, input: Parameters<typeof publish>[1]) {
  return step('publish', input.organizationId, () => publish(context.store, input));
}

/** Runs one stage, wrapping a failure with the organization and the stage (and keeping it as the cause). */
async function step<T>(stage: BuildStage, organizationId: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof BuildError) throw error;
    throw new BuildError(stage, organizationId, `organization ${organizationId}: ${stage} failed`, { cause: error });
  }
}
