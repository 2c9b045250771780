// The stream of changes the campaign makes while faults come and go, one every `intervalMs`, in
// turn: platform rows through SQL (each notifies the builders, which publish), keys created and
// revoked (through the admin API by a named credential, or through the CLI), organizations
// suspended and reactivated (the platform's own status column), webhook endpoints added, disabled
// and enabled again and sent test messages, and admin credentials created and revoked, each admin
// action by one of several named credentials. Each change is written down when its call returned
// (history.ts Change); one that failed (its backend down) is written down as tried, not as made. A
// suspension's or reactivation's publication is the first instant the organization's pointer,
// read straight from the store, shows the new state.
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { S3RVER_CREDENTIALS } from '../../test/support/s3.ts';
import { type KeyRing, revokeWithCli, type SoakKey } from '../soak/keys.ts';
import type { SoakPlatform } from '../soak/platform.ts';
import { PREFIX } from '../soak/world.ts';
import type { Change } from './history.ts';
import { BEHAVIOURS, type Receivers } from './receivers.ts';
import type { Random } from './schedule.ts';
import type { ChaosWorld } from './world.ts';

/** The campaign's named admin credentials and their roles. */
const ADMINS = [
  { name: 'alice', role: 'operator' },
  { name: 'bob', role: 'owner' },
  { name: 'carol', role: 'auditor' },
] as const;

/** Organizations with webhook endpoints: the platform changes favour them, so their endpoints get messages. */
const WEBHOOK_ORGANIZATIONS = 8;
const MAX_ENDPOINTS = 16;

interface Endpoint {
  id: string;
  organizationId: string;
  secret: string;
  enabled: boolean;
}

type StateChange = Extract<Change, { kind: 'organization.suspended' | 'organization.reactivated' }>;

export class ChangeStream {
  readonly changes: Change[] = [];
  readonly failures: string[] = [];
  /** X-Request-Id of every audited admin API action that returned 2xx. */
  readonly auditedRequests: string[] = [];
  readonly endpoints: Endpoint[] = [];
  /** Endpoints added so far, counting those still being added: each one's receiver (receivers.ts) and behaviour. */
  private endpointSerials = 0;
  readonly keysCreated: SoakKey[] = [];
  /** Keys whose revocation was asked for, returned or not: one whose call failed may still have been revoked, so none is required at the end. */
  readonly revocationsTried = new Set<string>();
  readonly adminsCreated: string[] = [];
  readonly adminsRevoked: string[] = [];
  /** Organizations suspended now (by index), with their change record. */
  private readonly suspended = new Map<number, StateChange>();
  private readonly tokens = new Map<string, string>();
  /** Organizations the sites changed (touch). */
  private touches = 0;
  /** Per organization id, when its last platform row change returned. */
  private readonly rowChanges = new Map<string, number>();
  private readonly publications: Promise<void>[] = [];
  private serial = 0;
  private adminTurns = 0;
  private readonly store: S3Client;
  readonly webhookOrganizations: number[];

  constructor(
    private readonly world: ChaosWorld,
    private readonly platform: SoakPlatform,
    private readonly ring: KeyRing,
    private readonly receivers: Receivers,
    private readonly random: Random,
  ) {
    this.store = new S3Client({ endpoint: world.bucket.endpoint, region: 'us-east-1', forcePathStyle: true, credentials: S3RVER_CREDENTIALS });
    this.webhookOrganizations = Array.from({ length: Math.min(WEBHOOK_ORGANIZATIONS, platform.organizations.length) }, (_, i) => i);
  }

  private record(change: Change): void {
    this.changes.push(change);
  }

  /** The named credentials, made with `marquee admins create` before the campaign starts. */
  async createAdmins(): Promise<void> {
    // At once: each is a CLI process, and the campaign's set-up counts against the suite's time.
    await Promise.all(
      ADMINS.map(async (admin) => {
        const run = await this.world.cli(['admins', 'create', '--name', admin.name, '--role', admin.role, '--json']);
        if (run.code !== 0) throw new Error(`marquee admins create ${admin.name} exited ${run.code}: ${run.stderr.trim()}`);
        this.tokens.set(admin.name, (JSON.parse(run.stdout) as { secret: string }).secret);
        this.adminsCreated.push(admin.name);
        this.record({ kind: 'admin.created', adminId: admin.name, returnedAt: performance.now() });
      }),
    );
  }

  /** Webhook endpoints to start with, one per webhook organization, each behaviour in turn. */
  async createEndpoints(): Promise<void> {
    await Promise.all(this.webhookOrganizations.map((organization) => this.addEndpoint(organization)));
  }

  /** Makes changes until `signal` aborts. */
  async run(intervalMs: number, signal: AbortSignal): Promise<void> {
    const steps = [
      () => this.platformRow(),
      () => this.createKey(),
      () => this.platformRow(),
      () => this.suspendOrReactivate(),
      () => this.revokeKey(),
      () => this.platformRow(),
      () => this.webhookChange(),
      () => this.suspendOrReactivate(),
      () => this.adminAction(),
    ];
    let next = performance.now();
    while (!signal.aborted) {
      const step = steps[this.serial % steps.length]!;
      this.serial++;
      try {
        await step();
      } catch (error) {
        // A change whose backend is down fails: written down as tried, never as made.
        if (this.failures.length < 200) this.failures.push((error as Error).message.split('\n')[0]!.slice(0, 300));
      }
      next += intervalMs;
      const wait = next - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }

  /** Organizations suspended now (indexes), for the sites to read pinned. */
  suspendedOrganizations(): number[] {
    return [...this.suspended.keys()];
  }

  /** When the last change of the organization's platform rows returned; undefined: none yet. */
  lastRowChange(organizationId: string): number | undefined {
    return this.rowChanges.get(organizationId);
  }

  /** Waits for every suspension's and reactivation's publication to be seen, or `deadline` (performance.now()). */
  async awaitPublications(deadline: number): Promise<void> {
    this.publicationDeadline = deadline;
    await Promise.all(this.publications);
  }
  private publicationDeadline = Number.POSITIVE_INFINITY;

  private organization(favourWebhooks: boolean): number {
    if (favourWebhooks && this.random.next() < 0.5) return this.random.pick(this.webhookOrganizations);
    return Math.floor(this.random.next() * this.platform.organizations.length);
  }

  private async platformRow(): Promise<void> {
    const index = this.organization(true);
    const organization = this.platform.organizations[index]!;
    const serial = this.serial;
    const event = organization.events.length > 0 ? this.random.pick(organization.events) : undefined;
    await this.changeRow(index, serial % 2 === 0 || event === undefined ? undefined : event.id, String(serial));
  }

  /**
   * Organization `index`'s name changed now, outside the stream's turns (whose order and draws it
   * leaves alone): the sites (sites.ts) change an organization they hold, so that their old pins
   * expire within even a short campaign.
   */
  async touch(index: number): Promise<void> {
    await this.changeRow(index, undefined, `site-${++this.touches}`);
  }

  /** The organization's name, or with `eventId` that event's, made new with `label`; recorded once the statement returned. */
  private async changeRow(index: number, eventId: string | undefined, label: string): Promise<void> {
    const organization = this.platform.organizations[index]!;
    const [statement, values] =
      eventId === undefined
        ? ['UPDATE organizations SET name = $2 WHERE id = $1', [organization.id, `${organization.name} (chaos ${label})`]]
        : ['UPDATE events SET name = $2 WHERE id = $1', [eventId, `Event ${label} (chaos)`]];
    await this.world.db.query(statement, values);
    const returnedAt = performance.now();
    this.rowChanges.set(organization.id, returnedAt);
    this.record({ kind: 'platform.row', organizationId: organization.id, statement, returnedAt });
  }

  /** An admin API call as `admin`; throws on anything but 2xx. */
  private async admin(admin: string, method: string, path: string, body?: unknown): Promise<{ json: unknown; requestId: string }> {
    // Every state-changing admin request is JSON, an empty object when it says nothing more.
    const sent = method === 'GET' ? undefined : JSON.stringify(body ?? {});
    const response = await fetch(`${this.world.adminUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${this.tokens.get(admin)}`, ...(sent === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(sent === undefined ? {} : { body: sent }),
      signal: AbortSignal.timeout(20_000),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${admin}: ${method} ${path} answered ${response.status}: ${text.slice(0, 200)}`);
    const requestId = response.headers.get('x-request-id') ?? '';
    if (method !== 'GET') this.auditedRequests.push(requestId);
    this.record({ kind: 'admin.action', actor: admin, action: `${method} ${path}`, returnedAt: performance.now() });
    return { json: text === '' ? undefined : JSON.parse(text), requestId };
  }

  private async createKey(): Promise<void> {
    const index = this.organization(false);
    const organizationId = this.platform.organizations[index]!.id;
    let key: SoakKey;
    if (this.serial % 2 === 0) {
      const { json } = await this.admin('alice', 'POST', '/keys', { organization: organizationId, label: 'chaos' });
      const created = json as { id: string; key: string };
      key = { id: created.id, secret: created.key, organization: index };
    } else {
      const run = await this.world.cli(['keys', 'create', '--org', organizationId, '--label', 'chaos (cli)', '--json']);
      if (run.code !== 0) throw new Error(`marquee keys create exited ${run.code}: ${run.stderr.trim().split('\n')[0]}`);
      const created = JSON.parse(run.stdout) as { id: string; key: string };
      key = { id: created.id, secret: created.key, organization: index };
    }
    this.record({ kind: 'key.created', keyId: key.id, organizationId, returnedAt: performance.now() });
    this.keysCreated.push(key);
    this.ring.add(key);
  }

  private async revokeKey(): Promise<void> {
    const viaApi = this.serial % 2 === 0;
    const key = await this.ring.revokeOne(async (id) => {
      this.revocationsTried.add(id);
      if (viaApi) await this.admin('bob', 'POST', `/keys/${id}/revoke`);
      else await revokeWithCli(this.world.cli, id);
    });
    this.record({ kind: 'key.revoked', keyId: key.id, organizationId: this.platform.organizations[key.organization]!.id, returnedAt: key.revokedAt! });
  }

  /**
   * Suspends an organization (never a webhook one), or reactivates the one suspended longest. The
   * first reactivation comes as soon as something is suspended, so that even a short campaign makes
   * both kinds of change; later ones come at random, so that suspensions overlap.
   */
  private async suspendOrReactivate(): Promise<void> {
    const [oldest] = this.suspended.entries();
    const reactivated = this.changes.some((change) => change.kind === 'organization.reactivated');
    if (oldest && (!reactivated || this.suspended.size >= 3 || this.random.next() < 0.4)) {
      const [index, suspension] = oldest;
      this.suspended.delete(index);
      try {
        await this.setState(index, 'active');
      } catch (error) {
        // Still suspended as far as anyone knows: reactivated by a later turn.
        this.suspended.set(index, suspension);
        throw error;
      }
      return;
    }
    const candidates = this.platform.organizations.map((o) => o.index).filter((index) => !this.webhookOrganizations.includes(index) && !this.suspended.has(index));
    if (candidates.length === 0) return;
    const index = this.random.pick(candidates);
    this.suspended.set(index, await this.setState(index, 'suspended'));
  }

  private async setState(index: number, state: 'suspended' | 'active'): Promise<StateChange> {
    const organizationId = this.platform.organizations[index]!.id;
    await this.world.db.query('UPDATE organizations SET status = $2 WHERE id = $1', [organizationId, state]);
    const change: StateChange = {
      kind: state === 'suspended' ? 'organization.suspended' : 'organization.reactivated',
      organizationId,
      returnedAt: performance.now(),
      publishedAt: undefined,
    };
    this.record(change);
    this.publications.push(this.watchPublication(change, state));
    return change;
  }

  /** Reads the organization's pointer straight from the store every 250 ms until it shows `state` (or another change of it came). */
  private async watchPublication(change: StateChange, state: 'suspended' | 'active'): Promise<void> {
    const key = `${PREFIX}/orgs/${change.organizationId}/current.json`;
    while (performance.now() < this.publicationDeadline) {
      try {
        const object = await this.store.send(new GetObjectCommand({ Bucket: this.world.bucket.bucket, Key: key }), { abortSignal: AbortSignal.timeout(5_000) });
        const pointer = JSON.parse(await object.Body!.transformToString()) as { state: string };
        if (pointer.state === state) {
          change.publishedAt = performance.now();
          return;
        }
      } catch {
        // The store halted or the read cut: try again.
      }
      // A later change of the same organization took over: this one's publication may never be seen alone.
      if (
        this.changes.some(
          (other) =>
            other !== change &&
            'organizationId' in other &&
            other.organizationId === change.organizationId &&
            other.kind.startsWith('organization.') &&
            other.returnedAt > change.returnedAt,
        )
      )
        return;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  private async addEndpoint(index: number): Promise<void> {
    // Taken before the first await: endpoints added at once each get their own receiver.
    const serial = this.endpointSerials++;
    const organizationId = this.platform.organizations[index]!.id;
    const url = this.receivers.url(serial, BEHAVIOURS[serial % BEHAVIOURS.length]!);
    let created: { id: string; secret: string };
    if (serial % 2 === 0) {
      created = (await this.admin('alice', 'POST', `/organizations/${organizationId}/webhooks`, { url, description: `chaos ${serial}` })).json as typeof created;
    } else {
      const run = await this.world.cli(['webhooks', 'add', '--org', organizationId, '--url', url, '--json']);
      if (run.code !== 0) throw new Error(`marquee webhooks add exited ${run.code}: ${run.stderr.trim().split('\n')[0]}`);
      created = JSON.parse(run.stdout) as typeof created;
    }
    this.receivers.bind(serial, created.id);
    this.endpoints.push({ id: created.id, organizationId, secret: created.secret, enabled: true });
    this.record({ kind: 'webhook.added', endpointId: created.id, organizationId, returnedAt: performance.now() });
  }

  private async webhookChange(): Promise<void> {
    // Until an endpoint has been disabled, every turn disables one, so that even a short campaign does.
    const disabled = this.changes.some((change) => change.kind === 'webhook.disabled');
    const roll = disabled ? this.random.next() : 1;
    if (roll < 0.3 && this.endpoints.length < MAX_ENDPOINTS) return this.addEndpoint(this.random.pick(this.webhookOrganizations));
    const endpoint = disabled ? this.random.pick(this.endpoints) : this.random.pick(this.endpoints.filter((candidate) => candidate.enabled));
    if (roll < 0.6) {
      await this.admin('alice', 'POST', `/webhooks/${endpoint.id}/test`);
      return;
    }
    const enable = !endpoint.enabled;
    await this.admin('alice', 'PATCH', `/webhooks/${endpoint.id}`, { enabled: enable });
    endpoint.enabled = enable;
    this.record({ kind: enable ? 'webhook.enabled' : 'webhook.disabled', endpointId: endpoint.id, organizationId: endpoint.organizationId, returnedAt: performance.now() });
  }

  /** An owner makes and revokes credentials, an operator asks for builds, an auditor reads. */
  private async adminAction(): Promise<void> {
    const turn = this.adminTurns++ % 3;
    if (turn === 0) {
      const name = `chaos-${this.serial}`;
      await this.admin('bob', 'POST', '/admins', { name, role: 'auditor' });
      this.adminsCreated.push(name);
      this.record({ kind: 'admin.created', adminId: name, returnedAt: performance.now() });
      const older = this.adminsCreated.find((candidate) => candidate.startsWith('chaos-') && candidate !== name && !this.adminsRevoked.includes(candidate));
      if (older !== undefined) {
        await this.admin('bob', 'POST', `/admins/${older}/revoke`);
        this.adminsRevoked.push(older);
        this.record({ kind: 'admin.revoked', adminId: older, returnedAt: performance.now() });
      }
    } else if (turn === 1) {
      await this.admin('alice', 'POST', '/builds', { organizations: [this.platform.organizations[this.organization(true)]!.id] });
    } else {
      await this.admin('carol', 'GET', '/organizations');
    }
  }

  close(): void {
    this.store.destroy();
  }
}
