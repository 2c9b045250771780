// Webhook endpoints, their messages and deliveries, in the platform database (docs/design.md
// "Webhooks"), in Marquee's own schema (records/schema/migrations/003-webhooks.sql): the
// one durable place every builder shares, in both modes — the embedded database lives in
// MARQUEE_HOME, a production one is the platform's PostgreSQL, the same home as the keys' durable
// record. A message is queued in the statement that follows its publish, one delivery per
// enabled endpoint of the organization, so a builder killed right after publishing leaves it
// queued; a delivery is taken by one builder at a time (`FOR UPDATE SKIP LOCKED`, with a lease a
// dead builder's claim expires from), and each attempt is logged per endpoint (the last 100).
// Instants come from the database's clock, so builders on several machines agree on what is due.
import { randomBytes } from 'node:crypto';
import type { SqlClient, SqlQueries } from '../../records/database/sql.ts';
import type { MessageType, WebhookMessage } from './messages.ts';
import { newSecret } from './signatures.ts';

/** Attempts kept per endpoint, newest first: what an operator reads to see why deliveries fail. */
const ATTEMPTS_KEPT = 100;

/** Response text kept with an attempt. */
const RESPONSE_KEPT_CHARS = 1_024;

/** A delivered or failed message is kept this long for redelivery, then forgotten. */
const MESSAGES_KEPT_DAYS = 30;

const iso = (column: string): string => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** An endpoint as the admin API shows it: never its secret. */
export interface WebhookEndpoint {
  id: string;
  organizationId: string;
  url: string;
  description: string | null;
  enabled: boolean;
  createdAt: string;
  /** Why it is disabled, when the deliverer disabled it (5 days of only failures); null otherwise. */
  disabledReason: string | null;
}

const ENDPOINT_COLUMNS = `id, organization_id AS "organizationId", url, description, enabled, ${iso('created_at')} AS "createdAt", disabled_reason AS "disabledReason"`;

/**
 * How deliveries to an endpoint are going (docs/design.md "Webhooks"): its last attempt, how it
 * ended and why, and what waits — the retry due next among them. What an operator reads first when
 * a site says it hears nothing.
 */
export interface EndpointHealth {
  lastAttempt: { at: string; messageId: string; delivered: boolean; status: number | null; error: string | null } | null;
  /** Deliveries waiting: due, or retrying later. */
  waiting: number;
  /** When the next retry of a delivery that failed is due; null when none waits for one. */
  nextRetryAt: string | null;
}

/** A builder running now, and the destinations it delivers to (WEBHOOK_ALLOW_PRIVATE, WEBHOOK_ALLOW_INSECURE). */
export interface BuilderPolicy {
  builder: string;
  allowPrivate: boolean;
  allowInsecure: boolean;
}

/** A builder announces its policy this often; one not heard from for three times as long is gone. */
export const POLICY_ANNOUNCED_EVERY_MS = 60_000;

export interface WebhookAttempt {
  at: string;
  messageId: string;
  type: MessageType;
  /** The receiver's status; null when there was none (timeout, refused connection, refused address). */
  status: number | null;
  error: string | null;
  durationMs: number;
  /** The start of the response body, up to 1 KiB. */
  response: string | null;
}

/** A delivery taken by a builder: everything needed to send it, and its attempt number. */
export interface ClaimedDelivery {
  messageId: string;
  endpointId: string;
  organizationId: string;
  type: MessageType;
  body: string;
  url: string;
  /** The secrets that sign it: the current one, and the previous one during a rotation's grace. */
  secrets: string[];
  /** Attempts made before this one. */
  attempts: number;
  queuedAt: string;
}

/** How an attempt ended, and what comes next. */
export type AttemptEnd = { outcome: 'delivered' } | { outcome: 'retry'; afterMs: number } | { outcome: 'failed' };

export interface AttemptRecord {
  status: number | null;
  error: string | null;
  durationMs: number;
  response: string | null;
}

const newId = (prefix: string): string => `${prefix}_${randomBytes(12).toString('base64url')}`;

/** The relations must exist (migrateMarquee). */
export class WebhookStore {
  constructor(private readonly db: SqlClient) {}

  async create(endpoint: { organizationId: string; url: string; description: string | null }): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
    const secret = newSecret();
    const [row] = await this.db.query<WebhookEndpoint>(
      `INSERT INTO marquee_webhook_endpoints (id, organization_id, url, description, secret) VALUES ($1, $2, $3, $4, $5) RETURNING ${ENDPOINT_COLUMNS}`,
      [newId('ep'), endpoint.organizationId, endpoint.url, endpoint.description, secret],
    );
    return { endpoint: row!, secret };
  }

  async list(organizationId?: string): Promise<WebhookEndpoint[]> {
    return organizationId === undefined
      ? this.db.query<WebhookEndpoint>(`SELECT ${ENDPOINT_COLUMNS} FROM marquee_webhook_endpoints ORDER BY created_at, id`)
      : this.db.query<WebhookEndpoint>(`SELECT ${ENDPOINT_COLUMNS} FROM marquee_webhook_endpoints WHERE organization_id = $1 ORDER BY created_at, id`, [organizationId]);
  }

  async get(id: string): Promise<WebhookEndpoint | undefined> {
    const [row] = await this.db.query<WebhookEndpoint>(`SELECT ${ENDPOINT_COLUMNS} FROM marquee_webhook_endpoints WHERE id = $1`, [id]);
    return row;
  }

  /** Enabling clears the reason it was disabled and its run of failures: the operator says the receiver is back. */
  async update(id: string, changes: { url?: string; description?: string | null; enabled?: boolean }): Promise<WebhookEndpoint | undefined> {
    const [row] = await this.db.query<WebhookEndpoint>(
      `UPDATE marquee_webhook_endpoints SET
         url = coalesce($2, url),
         description = CASE WHEN $3::boolean THEN $4 ELSE description END,
         enabled = coalesce($5, enabled),
         disabled_reason = CASE WHEN $5::boolean IS NOT NULL THEN NULL ELSE disabled_reason END,
         failing_since = CASE WHEN $5::boolean THEN NULL ELSE failing_since END
       WHERE id = $1 RETURNING ${ENDPOINT_COLUMNS}`,
      [id, changes.url ?? null, changes.description !== undefined, changes.description ?? null, changes.enabled ?? null],
    );
    return row;
  }

  async remove(id: string): Promise<boolean> {
    return (await this.db.query(`DELETE FROM marquee_webhook_endpoints WHERE id = $1 RETURNING id`, [id])).length > 0;
  }

  /** A new secret; the one it replaces keeps signing too for `graceMs`. */
  async rotate(id: string, graceMs: number): Promise<{ endpoint: WebhookEndpoint; secret: string } | undefined> {
    const secret = newSecret();
    const [row] = await this.db.query<WebhookEndpoint>(
      `UPDATE marquee_webhook_endpoints SET previous_secret = secret, previous_secret_until = now() + $3 * interval '1 millisecond', secret = $2
       WHERE id = $1 RETURNING ${ENDPOINT_COLUMNS}`,
      [id, secret, graceMs],
    );
    return row ? { endpoint: row, secret } : undefined;
  }

  /**
   * Queues the messages of one publish, each for every enabled endpoint of the organization, in
   * one statement that writes nothing when it has none. Resolves with the deliveries queued.
   */
  async queue(organizationId: string, messages: readonly WebhookMessage[]): Promise<number> {
    let queued = 0;
    for (const message of messages) {
      const rows = await this.db.query<{ n: number }>(
        `WITH endpoints AS (SELECT id FROM marquee_webhook_endpoints WHERE organization_id = $1 AND enabled),
              message AS (INSERT INTO marquee_webhook_messages (id, organization_id, type, body)
                          SELECT $2, $1, $3, $4 WHERE EXISTS (SELECT 1 FROM endpoints) RETURNING id),
              queued AS (INSERT INTO marquee_webhook_deliveries (message_id, endpoint_id, state, due_at)
                         SELECT message.id, endpoints.id, 'pending', now() FROM message, endpoints RETURNING 1)
         SELECT count(*)::int AS n FROM queued`,
        [organizationId, newId('msg'), message.type, JSON.stringify(message)],
      );
      queued += rows[0]?.n ?? 0;
    }
    return queued;
  }

  /** A message for one endpoint only (webhook.test); its id. */
  async queueFor(endpoint: WebhookEndpoint, message: WebhookMessage): Promise<string> {
    const id = newId('msg');
    await this.db.transaction(async (tx) => {
      await tx.query(`INSERT INTO marquee_webhook_messages (id, organization_id, type, body) VALUES ($1, $2, $3, $4)`, [
        id,
        endpoint.organizationId,
        message.type,
        JSON.stringify(message),
      ]);
      await tx.query(`INSERT INTO marquee_webhook_deliveries (message_id, endpoint_id, state, due_at) VALUES ($1, $2, 'pending', now())`, [id, endpoint.id]);
    });
    return id;
  }

  /**
   * Sends the message to the endpoint again, as new: due now, its attempts counted from zero,
   * under the same webhook-id. False when the message is not one this store keeps for the
   * endpoint's organization.
   */
  async redeliver(endpointId: string, messageId: string): Promise<boolean> {
    const rows = await this.db.query(
      `INSERT INTO marquee_webhook_deliveries (message_id, endpoint_id, state, due_at)
         SELECT m.id, e.id, 'pending', now() FROM marquee_webhook_messages m JOIN marquee_webhook_endpoints e ON e.organization_id = m.organization_id
         WHERE m.id = $2 AND e.id = $1
       ON CONFLICT (message_id, endpoint_id) DO UPDATE SET state = 'pending', attempts = 0, due_at = now(), claimed_by = NULL, claimed_until = NULL
       RETURNING 1`,
      [endpointId, messageId],
    );
    return rows.length > 0;
  }

  /**
   * Up to `limit` deliveries due now, for `builder`, each held for `leaseMs` (a builder that dies
   * holding one has it taken by another once the lease ends). Per endpoint only its oldest pending
   * message is a candidate, and only once it is due: a site gets its messages in the order they
   * were queued, so a message waiting for its retry holds back the endpoint's later ones (which
   * would otherwise overtake it). At most one per endpoint is in flight in the whole fleet: a
   * receiver that never answers holds one delivery slot, not all of them. Deliveries to disabled
   * endpoints wait: enabling the endpoint sends them. `due` is MATERIALIZED so that its LIMIT and
   * row locks are taken once, whatever plan the update gets (the runs' work list claimed a whole
   * run when its pick was run once per row). `due` states again, on the delivery itself, that it is
   * pending and unclaimed: the CTEs above read the statement's snapshot, and a row another builder
   * claimed (or delivered) and committed after that snapshot is locked here unchallenged unless a
   * condition on the locked row is checked again against its newest version — which is what
   * PostgreSQL does with a locking clause's own WHERE. Without it, two builders delivered one
   * message twice (test/integration/webhooks/two-builders.test.ts, once in CI).
   */
  async claim(builder: string, limit: number, leaseMs: number): Promise<ClaimedDelivery[]> {
    return this.db.query<ClaimedDelivery>(
      `WITH heads AS (
         SELECT DISTINCT ON (d.endpoint_id) d.message_id, d.endpoint_id, d.due_at, d.claimed_until
         FROM marquee_webhook_deliveries d JOIN marquee_webhook_endpoints e ON e.id = d.endpoint_id
         WHERE d.state = 'pending' AND e.enabled
         ORDER BY d.endpoint_id, d.queued_at, d.queued_order),
       candidates AS (
         SELECT h.message_id, h.endpoint_id, h.due_at FROM heads h
         WHERE h.due_at <= now() AND (h.claimed_until IS NULL OR h.claimed_until < now())
           AND NOT EXISTS (SELECT 1 FROM marquee_webhook_deliveries busy
                           WHERE busy.endpoint_id = h.endpoint_id AND busy.state = 'pending' AND busy.claimed_until >= now())),
       due AS MATERIALIZED (
         SELECT d.message_id, d.endpoint_id FROM marquee_webhook_deliveries d JOIN candidates c ON c.message_id = d.message_id AND c.endpoint_id = d.endpoint_id
         WHERE d.state = 'pending' AND (d.claimed_until IS NULL OR d.claimed_until < now())
         ORDER BY c.due_at LIMIT $2 FOR UPDATE OF d SKIP LOCKED)
       UPDATE marquee_webhook_deliveries d SET claimed_by = $1, claimed_until = now() + $3 * interval '1 millisecond'
         FROM due, marquee_webhook_messages m, marquee_webhook_endpoints e
         WHERE d.message_id = due.message_id AND d.endpoint_id = due.endpoint_id AND m.id = d.message_id AND e.id = d.endpoint_id
       RETURNING d.message_id AS "messageId", d.endpoint_id AS "endpointId", m.organization_id AS "organizationId", m.type, m.body, e.url,
         CASE WHEN e.previous_secret_until > now() THEN ARRAY[e.secret, e.previous_secret] ELSE ARRAY[e.secret] END AS secrets,
         d.attempts, ${iso('d.queued_at')} AS "queuedAt"`,
      [builder, limit, leaseMs],
    );
  }

  /**
   * Logs an attempt and ends it as `end` says, if `builder` still holds the delivery. A failure
   * starts or continues the endpoint's run of failures; one that has lasted `disableAfterMs`
   * disables it, saying so. A success ends the run. Resolves with the endpoint disabled, if it was.
   */
  async finish(builder: string, delivery: ClaimedDelivery, attempt: AttemptRecord, end: AttemptEnd, disableAfterMs: number): Promise<{ disabled: boolean }> {
    return this.db.transaction(async (tx) => {
      const held = await tx.query(
        `UPDATE marquee_webhook_deliveries SET attempts = attempts + 1, claimed_by = NULL, claimed_until = NULL,
           state = $4, due_at = CASE WHEN $4 = 'pending' THEN now() + $5 * interval '1 millisecond' ELSE NULL END
         WHERE message_id = $1 AND endpoint_id = $2 AND claimed_by = $3 RETURNING 1`,
        [delivery.messageId, delivery.endpointId, builder, end.outcome === 'retry' ? 'pending' : end.outcome, end.outcome === 'retry' ? Math.round(end.afterMs) : 0],
      );
      await recordAttempt(tx, delivery, attempt);
      if (held.length === 0) return { disabled: false };
      if (end.outcome === 'delivered') {
        await tx.query(`UPDATE marquee_webhook_endpoints SET failing_since = NULL WHERE id = $1`, [delivery.endpointId]);
        return { disabled: false };
      }
      const [endpoint] = await tx.query<{ disabled: boolean }>(
        `UPDATE marquee_webhook_endpoints SET failing_since = coalesce(failing_since, now()),
           enabled = enabled AND NOT (failing_since IS NOT NULL AND failing_since <= now() - $2 * interval '1 millisecond'),
           disabled_reason = CASE WHEN enabled AND failing_since IS NOT NULL AND failing_since <= now() - $2 * interval '1 millisecond'
             THEN 'disabled by the deliverer at ' || ${iso('now()')} || ': every attempt failed since ' || ${iso('failing_since')} ELSE disabled_reason END
         WHERE id = $1 RETURNING NOT enabled AND disabled_reason IS NOT NULL AS disabled`,
        [delivery.endpointId, disableAfterMs],
      );
      return { disabled: endpoint?.disabled ?? false };
    });
  }

  /** The endpoint's last attempts, newest first. */
  async attempts(endpointId: string): Promise<WebhookAttempt[]> {
    return this.db.query<WebhookAttempt>(
      `SELECT ${iso('at')} AS at, message_id AS "messageId", type, status, error, duration_ms AS "durationMs", response
       FROM marquee_webhook_attempts WHERE endpoint_id = $1 ORDER BY id DESC LIMIT ${ATTEMPTS_KEPT}`,
      [endpointId],
    );
  }

  /** Each endpoint's health, by endpoint id. */
  async health(endpointIds: readonly string[]): Promise<Map<string, EndpointHealth>> {
    if (endpointIds.length === 0) return new Map();
    const rows = await this.db.query<EndpointHealth & { id: string }>(
      `SELECT e.id,
         (SELECT json_build_object('at', ${iso('a.at')}, 'messageId', a.message_id, 'delivered', a.error IS NULL AND a.status BETWEEN 200 AND 299,
                                   'status', a.status, 'error', a.error)
          FROM marquee_webhook_attempts a WHERE a.endpoint_id = e.id ORDER BY a.id DESC LIMIT 1) AS "lastAttempt",
         (SELECT count(*)::int FROM marquee_webhook_deliveries d WHERE d.endpoint_id = e.id AND d.state = 'pending') AS waiting,
         (SELECT ${iso('min(d.due_at)')} FROM marquee_webhook_deliveries d WHERE d.endpoint_id = e.id AND d.state = 'pending' AND d.attempts > 0) AS "nextRetryAt"
       FROM marquee_webhook_endpoints e WHERE e.id = ANY($1::text[])`,
      [[...endpointIds]],
    );
    return new Map(rows.map(({ id, ...health }) => [id, health]));
  }

  /** A running builder says which destinations it delivers to (at start and every POLICY_ANNOUNCED_EVERY_MS). */
  async announcePolicy(policy: BuilderPolicy): Promise<void> {
    await this.db.query(
      `INSERT INTO marquee_builder_policies (builder, allow_private, allow_insecure, seen_at) VALUES ($1, $2, $3, now())
       ON CONFLICT (builder) DO UPDATE SET allow_private = excluded.allow_private, allow_insecure = excluded.allow_insecure, seen_at = now()`,
      [policy.builder, policy.allowPrivate, policy.allowInsecure],
    );
  }

  /** A builder that stops is no longer one that delivers. */
  async forgetPolicy(builder: string): Promise<void> {
    await this.db.query('DELETE FROM marquee_builder_policies WHERE builder = $1', [builder]);
  }

  /** The builders running now (heard from within three announcement periods) and their policies. */
  async livePolicies(): Promise<BuilderPolicy[]> {
    return this.db.query<BuilderPolicy>(
      `SELECT builder, allow_private AS "allowPrivate", allow_insecure AS "allowInsecure" FROM marquee_builder_policies
       WHERE seen_at > now() - $1 * interval '1 millisecond' ORDER BY builder`,
      [3 * POLICY_ANNOUNCED_EVERY_MS],
    );
  }

  /** Deliveries waiting (due or retrying), for the metrics. */
  async pending(): Promise<number> {
    const [row] = await this.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM marquee_webhook_deliveries WHERE state = 'pending'`);
    return row?.n ?? 0;
  }

  /** Forgets messages no delivery waits for, older than the days they are kept for redelivery. */
  async prune(): Promise<void> {
    await this.db.query(
      `DELETE FROM marquee_webhook_messages m WHERE m.created_at < now() - interval '${MESSAGES_KEPT_DAYS} days'
         AND NOT EXISTS (SELECT 1 FROM marquee_webhook_deliveries d WHERE d.message_id = m.id AND d.state = 'pending')`,
    );
  }
}

async function recordAttempt(tx: SqlQueries, delivery: ClaimedDelivery, attempt: AttemptRecord): Promise<void> {
  await tx.query(`INSERT INTO marquee_webhook_attempts (endpoint_id, message_id, type, status, error, duration_ms, response) VALUES ($1, $2, $3, $4, $5, $6, $7)`, [
    delivery.endpointId,
    delivery.messageId,
    delivery.type,
    attempt.status,
    attempt.error,
    Math.round(attempt.durationMs),
    attempt.response?.slice(0, RESPONSE_KEPT_CHARS) ?? null,
  ]);
  // Bounded per endpoint: the newest are what explain a failure.
  await tx.query(
    `DELETE FROM marquee_webhook_attempts WHERE endpoint_id = $1 AND id < (SELECT min(id) FROM (SELECT id FROM marquee_webhook_attempts WHERE endpoint_id = $1 ORDER BY id DESC LIMIT ${ATTEMPTS_KEPT}) newest)`,
    [delivery.endpointId],
  );
}
