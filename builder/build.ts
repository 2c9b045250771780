// The build orchestrator: lock → read → project → validate → serialize → publish → release →
// announce, one organization at a time (a few in parallel), so memory stays bounded by the
// concurrency and never by the size of the platform. The output store is a parameter: tests build
// into memory.
import type { PublishChannel } from '../snapshot/notifications.ts';
import type { BuildTrigger, OrganizationState } from '../snapshot/manifest.ts';
import type { SchemaSet } from '../snapshot/schemas.ts';
import type { SnapshotStore } from '../snapshot/store.ts';
import type { Signer } from '../snapshot/signing.ts';
import type { Coding } from '../snapshot/codings.ts';
import type { PublicationLog } from '../records/publication-log/log-store.ts';
import { describeError } from '../runtime/errors.ts';
import { type BuildLease, type BuildLocks, DEFAULT_LOCK_TIMING, waitForLock } from './build-locks.ts';
import { mapConcurrently } from './concurrently.ts';
import { BuildError, type BuildStage, PointerConflictError } from './errors.ts';
import type { ListedOrganization, PlatformSource } from './platform/rows.ts';
import type { BuiltVersions, Verification } from './platform/versions.ts';
import { projectionVersion } from './projection-version.ts';
import { projectOrganization, resourcesOf } from './projection/index.ts';
import { type CurrentPointer, publish, type PublishOutcome, type PublishResult, readCurrentPointer } from './publish.ts';
import { retainOrganization, retentionMayDelete, retentionPolicy } from './retention.ts';
import { serializeResources } from './serialize.ts';
import { validateResources } from './validate.ts';
import type { WebhookOutbox } from './webhooks/outbox.ts';

export interface BuildContext {
  source: PlatformSource;
  store: SnapshotStore;
  schemas: SchemaSet;
  publicBaseUrl: string;
  builderVersion: string;
  /** Signs every manifest and state record these builds publish (SNAPSHOT_SIGNING_KEY); absent: unsigned. */
  signer?: Signer;
  /** The compressed forms stored beside each object these builds write (SNAPSHOT_CODINGS); absent: STORED_CODINGS (gzip). */
  codings?: readonly Coding[];
  /**
   * The publication log (records/publication-log/): every manifest and state record these builds
   * publish, and every one their retention removes, is appended to it before anything names it
   * (builder/publish.ts). Given wherever there is the platform database (bin/services.ts); absent:
   * nothing is logged (tests and tools building into a store alone).
   */
  publicationLog?: PublicationLog;
  /** The projection version builds record (builder/projection-version.ts, this release's by default). */
  projectionVersion?: string;
  /**
   * Where each build records the versions it built from, and where a run of changed organizations
   * learns which those are (builder/platform/versions.ts). Absent: nothing is recorded, and such a
   * run builds every organization.
   */
  builtVersions?: BuiltVersions;
  /** Told after every publish that changed what an organization serves. */
  channel?: PublishChannel;
  /** Where each publish that changed what an organization serves queues its webhook messages. */
  webhooks?: WebhookOutbox;
  /** Called with the ids of organizations whose pointer changed (CDN invalidation). */
  onPointersChanged?: (organizationIds: string[]) => Promise<void>;
  now?: () => Date;
  /** Organizations built at once. */
  concurrency?: number;
  /**
   * Per-organization locks shared with every other builder (Redis) or within this process: each
   * organization's build holds its lock from the read to the publish. Without them only the
   * conditional pointer write keeps two builds of one organization from overwriting each other.
   */
  locks?: BuildLocks;
  /** How long a build waits for another builder's lock on an organization before it fails that organization. */
  lockWaitMs?: number;
  /**
   * Retention after each publish that gave an organization a new snapshot, for that organization
   * only, and only when it has more snapshots than `keep` and its oldest is older than `days` (one
   * listing decides). Absent: only `marquee gc` applies retention.
   */
  retention?: {
    keep: number;
    days: number;
    /** A failed retention does not fail the build (the next one tries again); told here. */
    onError?: (organizationId: string, error: unknown) => void;
  };
}

export interface OrganizationResult {
  id: string;
  slug: string;
  result: PublishResult | 'failed';
  snapshotId?: string;
  /** When failed: one line naming the organization, the resource when known, and the reason with its causes. */
  error?: string;
  /**
   * When failed: the stage, the API path at fault when known, and whether it failed for want of a
   * backend, so that another attempt may succeed once it answers (builder/runs/backend-retries.ts); not
   * when its rows cannot be published as they are. For logs and retries; not part of `build --json`.
   */
  failure?: { stage: BuildStage | undefined; resource: string | undefined; backend: boolean };
  /** Published, with something the operator should know (a gap in history). For logs; not part of `build --json`. */
  warning?: string;
  objectsWritten: number;
  /** Built although it had not changed: the rolling verification's share of a run of changed organizations. */
  verified?: true;
}

export interface BuildRequest {
  /** Organization ids; all organizations when absent. */
  organizationIds?: readonly string[];
  /**
   * Only the organizations whose source or projection version differs from what was built into
   * the store, and with `verification` a share of the others, built in full whatever their
   * versions say (docs/design.md "Runs divided among builders"). Ignored with `organizationIds`.
   */
  changed?: { verification?: Verification };
  trigger: BuildTrigger;
  /** Told how many organizations the build will build once it has listed them, and how many it left out as unchanged. */
  onListed?: (total: number, selection: { skipped: number; verifying: number }) => void;
  onProgress?: (done: number, total: number, last: OrganizationResult) => void;
}

export async function buildOrganizations(context: BuildContext, request: BuildRequest): Promise<OrganizationResult[]> {
  const { targets, skipped } = await selectTargets(context, request);
  request.onListed?.(targets.length, { skipped, verifying: targets.filter((target) => target.verify).length });
  const build = organizationBuilder(context, request.trigger);
  let done = 0;
  const results = await mapConcurrently(targets, context.concurrency ?? 4, async (target) => {
    const result = await build(target);
    request.onProgress?.(++done, targets.length, result);
    return result;
  });
  await pointersChanged(context, results);
  return results;
}

/**
 * Builds organizations one call each, as a run takes them (buildOrganizations, or a builder's part
 * of a divided run): never throws, and after GIVE_UP_AFTER_BACKEND_FAILURES organizations in a row
 * failed for want of a backend, fails the next ones at once, saying so, until one does not.
 */
export function organizationBuilder(context: BuildContext, trigger: BuildTrigger): (target: Target) => Promise<OrganizationResult> {
  /** Organizations that failed for want of a backend since one last did not, and the last reason. */
  let backendFailures = 0;
  let lastBackendFailure = '';
  return async (target) => {
    if (backendFailures >= GIVE_UP_AFTER_BACKEND_FAILURES) {
      const why = `not built, since the last ${backendFailures} organizations built failed for want of a backend, the last with: ${lastBackendFailure}`;
      return failed(target, `organization ${target.id}: ${why}`, undefined);
    }
    const result = await buildOrganization(context, target, trigger);
    if (target.verify) result.verified = true;
    if (result.failure?.backend) {
      backendFailures++;
      lastBackendFailure = result.error ?? '';
    } else {
      backendFailures = 0;
    }
    return result;
  };
}

/** Tells the context (CDN invalidation) of the organizations whose pointer these builds changed. */
export async function pointersChanged(context: BuildContext, results: readonly OrganizationResult[]): Promise<void> {
  const changed = results.filter((r) => r.result === 'published' || r.result === 'suspended').map((r) => r.id);
  if (changed.length > 0) await context.onPointersChanged?.(changed);
}

/** What a build builds: those named, those changed (and verified), or every organization; and how many it left out as unchanged. */
export async function selectTargets(context: BuildContext, request: Pick<BuildRequest, 'organizationIds' | 'changed'>): Promise<{ targets: Target[]; skipped: number }> {
  const { organizationIds, changed } = request;
  if (organizationIds === undefined && changed !== undefined && context.builtVersions !== undefined) {
    const selection = await context.builtVersions.select(projectionVersionOf(context), changed.verification);
    return {
      targets: selection.organizations.map(({ reason, ...organization }) => ({ ...organization, ...(reason === 'verify' ? { verify: true } : {}) })),
      skipped: selection.skipped,
    };
  }
  const all = await context.source.listOrganizations();
  const wanted = organizationIds ? new Set(organizationIds) : undefined;
  return { targets: wanted ? all.filter((org) => wanted.has(org.id)) : all, skipped: 0 };
}

function projectionVersionOf(context: BuildContext): string {
  return context.projectionVersion ?? projectionVersion();
}

/**
 * Organizations in a row that failed for want of a backend, after which a build starts no more: the
 * backend is down or overwhelmed, and each further attempt would wait out its timeouts and add to
 * its load. Those not started fail saying so, and a runner builds them once the backends answer
 * (builder/runs/backend-retries.ts). Twice the default concurrency: those in flight, and as many again.
 */
const GIVE_UP_AFTER_BACKEND_FAILURES = 8;

/** Attempts at one organization when another builder keeps replacing its pointer between our read and our write. */
const MAX_ATTEMPTS = 3;

/**
 * How long an organization's build waits for another builder's lock by default: twice the lock's
 * TTL, so that the lock of a builder that died holding it expires before the wait ends.
 */
const DEFAULT_LOCK_WAIT_MS = 2 * DEFAULT_LOCK_TIMING.ttlMs;

/** An organization a build builds, as listed; `verify`: for the rolling verification, not because it changed. */
export type Target = ListedOrganization & { verify?: boolean };

/**
 * Builds one organization, holding its build lock (when the context has locks) from the read to
 * the publish. Never throws: a failure (a resource failing its schema, a stage that could not
 * complete, a lock that could not be had) is a result naming the organization, the resource and
 * the reason, and the organization keeps its previous snapshot.
 */
async function buildOrganization(context: BuildContext, target: Target, trigger: BuildTrigger): Promise<OrganizationResult> {
  const locked = await lockOrganization(context, target);
  if ('failure' in locked) return locked.failure;
  let built: Built;
  let unrecorded: string | undefined;
  try {
    built = await buildWithRetries(context, target, trigger);
    // Under the lock, so that two builds of one organization record in the order they read.
    if ('outcome' in built) unrecorded = await recordBuilt(context, target.id, built.sourceVersion);
  } finally {
    await locked.lease?.release();
  }
  if ('failure' in built) return built.failure;
  const { outcome } = built;
  try {
    // After the release: announcing can take a while when the channel's backend is down, and a
    // gateway re-reads the pointer whoever announces it.
    const channel = context.channel;
    if (outcome.result !== 'unchanged' && channel) await step('announce', target.id, () => channel.announce(target.id));
  } catch (error) {
    return failedResult(target, error);
  }
  // After the announce: a site told of a change and fetching at once gets the new snapshot.
  const unqueued = await queueWebhooks(context, outcome);
  // After the announce, so that a new snapshot is never served later for it.
  if (outcome.result === 'published') await retainAfterPublish(context, target.id);
  const warning = [outcome.warning, unrecorded, unqueued].filter((text) => text !== undefined).join('; ');
  return {
    id: target.id,
    slug: target.slug,
    result: outcome.result,
    objectsWritten: outcome.objectsWritten,
    ...(outcome.snapshotId ? { snapshotId: outcome.snapshotId } : {}),
    ...(warning ? { warning } : {}),
  };
}

/** `sourceVersion`: what the build read its rows at; absent where the source keeps no versions. */
type Built = { outcome: PublishOutcome; sourceVersion: string | undefined } | { failure: OrganizationResult };

/**
 * Records that the organization's snapshot in this store is built from these versions. Its
 * failure fails nothing (what the API serves is published): the organization is only built again
 * by the next scheduled run, which the warning says.
 */
async function recordBuilt(context: BuildContext, organizationId: string, sourceVersion: string | undefined): Promise<string | undefined> {
  if (context.builtVersions === undefined || sourceVersion === undefined) return undefined;
  try {
    await context.builtVersions.record({ organizationId, sourceVersion, projectionVersion: projectionVersionOf(context) });
    return undefined;
  } catch (error) {
    return `the versions it was built from could not be recorded (the next scheduled run builds it again): ${describeError(error)}`;
  }
}

/**
 * Queues the publish's webhook messages. The publish is done whatever happens here, so a failure
 * is a warning on the result, not a failed build: its messages are lost, which the warning says.
 */
async function queueWebhooks(context: BuildContext, outcome: PublishOutcome): Promise<string | undefined> {
  if (context.webhooks === undefined || outcome.change === undefined) return undefined;
  try {
    await context.webhooks.published(outcome.change);
    return undefined;
  } catch (error) {
    return `its webhook messages could not be queued: ${describeError(error)}`;
  }
}

async function retainAfterPublish(context: BuildContext, organizationId: string): Promise<void> {
  const retention = context.retention;
  if (!retention) return;
  try {
    const policy = retentionPolicy({ keep: retention.keep, days: retention.days, ...(context.now ? { now: context.now() } : {}) });
    if (await retentionMayDelete(context.store, organizationId, policy)) await retainOrganization(context.store, organizationId, policy, false, context.publicationLog);
  } catch (error) {
    retention.onError?.(organizationId, error);
  }
}

/**
 * The organization's lock, waiting while another builder holds it. Waiting rather than skipping:
 * the other builder may have read the platform before the change this build is for.
 */
async function lockOrganization(context: BuildContext, target: Target): Promise<{ lease: BuildLease | undefined } | { failure: OrganizationResult }> {
  if (!context.locks) return { lease: undefined };
  const waitMs = context.lockWaitMs ?? DEFAULT_LOCK_WAIT_MS;
  let lease: BuildLease | undefined;
  try {
    lease = await waitForLock(context.locks, target.id, waitMs);
  } catch (error) {
    return { failure: failed(target, `organization ${target.id}: its build lock could not be taken: ${describeError(error)}`, undefined) };
  }
  if (!lease) return { failure: failed(target, `organization ${target.id}: another builder held its build lock for more than ${waitMs / 1000} s`, undefined) };
  return { lease };
}

/** Builds from a fresh read again when the pointer write is refused because another builder published meanwhile. */
async function buildWithRetries(context: BuildContext, target: Target, trigger: BuildTrigger): Promise<Built> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await readAndPublish(context, target, trigger);
    } catch (error) {
      if (!(error instanceof PointerConflictError)) return { failure: failedResult(target, error) };
      if (attempt === MAX_ATTEMPTS) {
        return { failure: failed(target, `${error.message}, at each of ${MAX_ATTEMPTS} attempts from a fresh read`, 'publish') };
      }
    }
  }
}

async function readAndPublish(context: BuildContext, target: Target, trigger: BuildTrigger): Promise<Built> {
  const started = performance.now();
  const now = context.now?.() ?? new Date();
  const common = {
    organizationId: target.id,
    organizationSlug: target.slug,
    trigger,
    now,
    builderVersion: context.builderVersion,
    projectionVersion: projectionVersionOf(context),
    ...(context.signer ? { signer: context.signer } : {}),
    ...(context.codings ? { codings: context.codings } : {}),
    ...(context.publicationLog ? { publicationLog: context.publicationLog } : {}),
  };
  // The pointer before the rows: its version is what this publish's pointer write expects, so a
  // publish by another builder after this read — of rows read after ours — is never replaced by
  // ours, even when the build lock that should have kept us apart was lost (its Redis flushed).
  const current = await step('read', target.id, () => readCurrentPointer(context.store, target.id));
  const publishState = async (state: OrganizationState, sourceVersion: string | undefined) => ({
    outcome: await publishStep(context, { ...common, state, objects: [], slugs: {}, durationMs: 0 }, current),
    sourceVersion,
  });
  if (target.status !== 'active') return publishState(target.status, target.sourceVersion);
  const data = await step('read', target.id, () => context.source.readOrganization(target.id));
  if (!data) return { failure: failed(target, `organization ${target.id} (${target.slug}) no longer exists`, 'read', undefined, false) };
  // Suspended or closed since it was listed (a build may have waited for its lock): the read is newer.
  if (data.organization.status !== 'active') return publishState(data.organization.status, data.sourceVersion);
  const projection = await step('project', target.id, async () => projectOrganization(data, { publicBaseUrl: context.publicBaseUrl }));
  const resources = resourcesOf(projection);
  const validation = validateResources(context.schemas, resources);
  if (!validation.valid) {
    return {
      failure: failed(
        target,
        `organization ${target.id}: resource ${validation.resource} fails schema ${validation.schema}: ${validation.reason}`,
        'validate',
        validation.resource,
        false,
      ),
    };
  }
  const objects = serializeResources(resources);
  const outcome = await publishStep(
    context,
    {
      ...common,
      state: 'active',
      objects,
      slugs: projection.slugs,
      durationMs: performance.now() - started,
      ...(data.sourceVersion === undefined ? {} : { sourceVersion: data.sourceVersion }),
    },
    current,
  );
  return { outcome, sourceVersion: data.sourceVersion };
}

/** `backend`: failed for want of a backend (the default), so another attempt may succeed once it answers. */
function failed(target: Target, error: string, stage: BuildStage | undefined, resource?: string, backend = true): OrganizationResult {
  return { id: target.id, slug: target.slug, result: 'failed', error, failure: { stage, resource, backend }, objectsWritten: 0 };
}

/** A stage's error as a failed result: with its stage and resource when it is a BuildError. */
function failedResult(target: Target, error: unknown): OrganizationResult {
  // A projection that fails (an unknown time zone) fails the same way until the rows change.
  if (error instanceof BuildError) return failed(target, error.describe(), error.stage, error.resource, error.stage !== 'project');
  return failed(target, `organization ${target.id}: ${describeError(error)}`, undefined);
}

function publishStep(context: BuildContext, input: Parameters<typeof publish>[1], current: CurrentPointer) {
  return step('publish', input.organizationId, () => publish(context.store, input, current));
}

/** Runs one stage, wrapping a failure with the organization and the stage (and keeping it as the cause). */
async function step<T>(stage: BuildStage, organizationId: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    // A refused pointer write is an outcome the caller retries, not a failure of the stage.
    if (error instanceof BuildError || error instanceof PointerConflictError) throw error;
    throw new BuildError(stage, organizationId, `organization ${organizationId}: ${stage} failed`, { cause: error });
  }
}
