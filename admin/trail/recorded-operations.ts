// Where the audit trail's entries come from (docs/design.md "The audit trail"): the operations layer,
// which every door calls (admin API, console, CLI), so an action leaves exactly one entry whichever
// door took it. Each door says who acts once, around the request or the command (actingAs); each
// state-changing operation is one line of AUDITED below, which says its action, what it acted on
// and what it changed. Refusals the operation itself answers (an unknown key, a URL not allowed)
// are entries too; a door records those it answers before any operation runs (doorRefusal).
import { isUuid } from '../../snapshot/layout.ts';
import type { Attribution } from '../../records/actor.ts';
import type { OrganizationDirectory } from '../organization-admin.ts';
import { adminProblemOf } from '../problem.ts';
import type { BuildOperations } from '../build-admin.ts';
import type { AdminCredentialOperations } from '../credentials/credential-admin.ts';
import type { KeyOperations } from '../keys/key-admin.ts';
import type { VerificationOperations } from '../verification-admin.ts';
import type { WebhookOperations } from '../webhook-admin.ts';
import { type AuditAction, type AuditChanges, type AuditEntry, type AuditOutcome, type KnownSecret, redactKnown } from '../../records/trail/audit-entry.ts';
import { currentAttribution } from '../acting.ts';
import type { AuditTrail } from '../../records/trail/audit-trail.ts';

/** What an entry says of its subject; the organization may be named by id or slug (resolved when recorded). */
export interface AuditSubject {
  readonly organization?: string | null | undefined;
  readonly targetId?: string | null | undefined;
}

export interface ActionRecord extends AuditSubject {
  readonly action: AuditAction;
  readonly outcome: AuditOutcome;
  readonly reason?: string | null;
  readonly changes?: AuditChanges;
}

/** Appends entries under the current attribution. */
export interface AuditRecorder {
  record(action: ActionRecord, attribution?: Attribution): Promise<AuditEntry>;
}

/** How many entries each attribution (one request, one command) has recorded: a door records a refusal only when none was. */
const recordedCounts = new WeakMap<Attribution, number>();

export function entriesRecordedUnder(attribution: Attribution): number {
  return recordedCounts.get(attribution) ?? 0;
}

/**
 * `known`: the secrets this process knows by value (ADMIN_TOKEN), replaced by their marker in
 * every reason and change before the entry is made: a `db sql` statement, or the error it got,
 * may quote one, and auditors read the trail. Secrets of Marquee's own formats (`mqk_`, `mqa_`,
 * `whsec_`) are replaced by the trail itself (records/trail/audit-entry.ts scrubSecrets).
 */
export function auditRecorder(trail: () => Promise<AuditTrail>, organizations: OrganizationDirectory, known: readonly KnownSecret[] = []): AuditRecorder {
  return {
    record: async (action, attribution = currentAttribution()) => {
      recordedCounts.set(attribution, entriesRecordedUnder(attribution) + 1);
      return (await trail()).append({
        actor: attribution.actor.name,
        actorRole: attribution.actor.role,
        door: attribution.door,
        requestId: attribution.requestId ?? null,
        clientAddress: attribution.clientAddress ?? null,
        action: action.action,
        organizationId: await organizationIdOf(organizations, action.organization),
        targetId: action.targetId ?? null,
        outcome: action.outcome,
        reason: redactKnown(action.reason ?? null, known),
        changes: redactKnown(action.changes ?? {}, known),
      });
    },
  };
}

/** An id is kept as given; a slug is looked up; one the platform does not know is kept as given. */
async function organizationIdOf(organizations: OrganizationDirectory, organization: string | null | undefined): Promise<string | null> {
  if (organization === undefined || organization === null) return null;
  if (isUuid(organization)) return organization;
  return organizations.find(organization).then(
    (found) => found.id,
    () => organization,
  );
}

/** An error's outcome and reason: a 4xx an operator is told of is a refusal, anything else a failure. */
export function outcomeOf(error: unknown): { outcome: AuditOutcome; reason: string } {
  const problem = adminProblemOf(error);
  if (problem === undefined) return { outcome: 'failed', reason: 'INTERNAL_ERROR' };
  return { outcome: problem.status < 500 ? 'refused' : 'failed', reason: `${problem.errorCode}: ${problem.detail}` };
}

const recordedErrors = new WeakSet<object>();

/** True once an operation recorded this error's refusal or failure: the door must not record it again. */
export function alreadyRecorded(error: unknown): boolean {
  return typeof error === 'object' && error !== null && recordedErrors.has(error);
}

/** The areas of admin/services.ts AdminServices whose operations change state. */
interface AuditedServices {
  keys: KeyOperations;
  webhooks: WebhookOperations;
  builds: BuildOperations;
  admins: AdminCredentialOperations;
  verifications: VerificationOperations;
}

/** What one state-changing operation records. */
interface Audited<Args extends unknown[], Result> {
  readonly action: AuditAction | ((...args: Args) => AuditAction);
  /** Field names and new values, from the arguments: never a secret. */
  readonly changes?: (...args: Args) => AuditChanges;
  /** Read before the operation, for what it removes (a deleted endpoint's organization). */
  readonly before?: (services: AuditedServices, ...args: Args) => Promise<unknown>;
  /** Its subject: from the answer when there is one, else from the arguments or what `before` read. */
  readonly subject: (args: Args, result: Result | undefined, before: unknown) => AuditSubject;
}

type Operation = (...args: never[]) => Promise<unknown>;
type AuditedArea<Area> = { readonly [Name in keyof Area]?: Area[Name] extends (...args: infer A) => Promise<infer R> ? Audited<A, R> : never };

const organizationOf = (found: unknown): string | null => (found as { organizationId?: string } | undefined)?.organizationId ?? null;
const endpointFirst = (services: AuditedServices, id: string) => services.webhooks.get(id).catch(() => undefined);

/**
 * Every state-changing operation, one line each: an operation missing here changes state unrecorded,
 * which the trail's test (driven from the admin API's route declarations) catches.
 */
const AUDITED: { readonly [Area in keyof AuditedServices]: AuditedArea<AuditedServices[Area]> } = {
  keys: {
    create: {
      action: 'key.created',
      changes: (request) => ({
        organization: request.organization,
        origins: request.origins ?? [],
        label: request.label ?? null,
        expiresAt: request.expiresAt?.toISOString() ?? null,
      }),
      subject: ([request], key) => ({ organization: key?.organizationId ?? request.organization, targetId: key?.id ?? null }),
    },
    update: { action: 'key.updated', changes: (_id, changes) => ({ ...changes }), subject: ([id], key) => ({ organization: key?.organizationId ?? null, targetId: id }) },
    revoke: { action: 'key.revoked', subject: ([id], key) => ({ organization: key?.organizationId ?? null, targetId: id }) },
    roll: {
      action: 'key.rolled',
      changes: (_id, options) => ({ graceSeconds: options.graceSeconds ?? null }),
      subject: ([id], rolled) => ({ organization: rolled?.replaced.organizationId ?? null, targetId: id }),
    },
  },
  webhooks: {
    add: {
      action: 'webhook.created',
      changes: (organization, endpoint) => ({ organization, url: endpoint.url, description: endpoint.description ?? null }),
      subject: ([organization], endpoint) => ({ organization: endpoint?.organizationId ?? organization, targetId: endpoint?.id ?? null }),
    },
    update: {
      action: (_id, changes) =>
        Object.keys(changes).length === 1 && changes.enabled !== undefined ? (changes.enabled ? 'webhook.enabled' : 'webhook.disabled') : 'webhook.updated',
      changes: (_id, changes) => ({ ...changes }),
      subject: ([id], endpoint) => ({ organization: endpoint?.organizationId ?? null, targetId: id }),
    },
    remove: { action: 'webhook.deleted', before: endpointFirst, subject: ([id], _none, found) => ({ organization: organizationOf(found), targetId: id }) },
    rotate: { action: 'webhook.rotated', subject: ([id], endpoint) => ({ organization: endpoint?.organizationId ?? null, targetId: id }) },
    test: {
      action: 'webhook.tested',
      before: endpointFirst,
      subject: ([id], _queued, found) => ({ organization: organizationOf(found), targetId: id }),
    },
    redeliver: {
      action: 'webhook.redelivered',
      before: endpointFirst,
      changes: (_id, messageId) => ({ messageId }),
      subject: ([id], _none, found) => ({ organization: organizationOf(found), targetId: id }),
    },
  },
  admins: {
    create: {
      action: 'admin.created',
      changes: (request) => ({ name: request.name, role: request.role, expiresAt: request.expiresAt?.toISOString() ?? null }),
      subject: ([request], credential) => ({ targetId: credential?.name ?? request.name }),
    },
    revoke: { action: 'admin.revoked', subject: ([name]) => ({ targetId: name }) },
  },
  builds: {
    start: {
      action: 'build.requested',
      changes: (organizations = []) => ({ organizations: [...organizations] }),
      subject: ([organizations = []], run) => ({ organization: organizations.length === 1 ? organizations[0] : null, targetId: run?.id ?? null }),
    },
  },
  // Changes nothing of the platform, but runs minutes of work in this process: who started it is the trail's.
  verifications: {
    start: { action: 'verification.requested', subject: (_args, job) => ({ targetId: job?.id ?? null }) },
  },
};

/** The same operations, each state-changing one recording its entry: what every door is given. */
export function recordedServices<Services extends Partial<AuditedServices>>(services: Services, recorder: AuditRecorder): Services {
  const recorded = { ...services } as Record<string, unknown>;
  for (const [area, operations] of Object.entries(AUDITED) as [keyof AuditedServices, Record<string, Audited<unknown[], unknown>>][]) {
    const inner = services[area] as unknown as Record<string, Operation> | undefined;
    // recordedArea passes one area alone.
    if (inner === undefined) continue;
    const wrapped: Record<string, unknown> = { ...inner };
    for (const [name, audited] of Object.entries(operations)) wrapped[name] = recordedOperation(inner[name]!.bind(inner), audited, services as AuditedServices, recorder);
    recorded[area] = wrapped;
  }
  return recorded as Services;
}

/** One area's operations for a door that builds them alone (the CLI's keys and webhooks commands). */
export function recordedArea<Area extends keyof AuditedServices>(area: Area, operations: AuditedServices[Area], recorder: AuditRecorder): AuditedServices[Area] {
  return recordedServices({ [area]: operations } as Partial<AuditedServices>, recorder)[area]!;
}

function recordedOperation(operation: Operation, audited: Audited<unknown[], unknown>, services: AuditedServices, recorder: AuditRecorder): Operation {
  return async (...args: unknown[]) => {
    const attribution = currentAttribution();
    const action = typeof audited.action === 'function' ? audited.action(...args) : audited.action;
    const changes = audited.changes?.(...args) ?? {};
    const before = await audited.before?.(services, ...args);
    let result: unknown;
    try {
      result = await (operation as (...args: unknown[]) => Promise<unknown>)(...args);
    } catch (error) {
      await recorder.record({ action, changes, ...audited.subject(args, undefined, before), ...outcomeOf(error) }, attribution);
      if (typeof error === 'object' && error !== null) recordedErrors.add(error);
      throw error;
    }
    await recorder.record({ action, changes, ...audited.subject(args, result, before), outcome: 'ok' }, attribution);
    return result;
  };
}
