// A platform held in memory and a one-organization build set-up over it, for the builder's unit
// tests (test/unit/builder/build.test.ts, test/unit/builder/runs/runner.test.ts).
import type { BuildContext } from '../../builder/build.ts';
import type { OrganizationData, PlatformSource } from '../../builder/platform/rows.ts';
import { InProcessChannel } from '../../snapshot/notifications.ts';
import { SchemaSet } from '../../snapshot/schemas.ts';
import { MemoryStore } from '../../snapshot/stores/memory.ts';
import { PlatformFixture } from './platform-fixture.ts';

/** A platform held in memory: each organization's data can be replaced between builds. */
class MemorySource implements PlatformSource {
  readonly data = new Map<string, OrganizationData>();
  failing = new Set<string>();
  /** Called at every read, before it returns: a test sees (and may change) the moment of each read. */
  onRead: (id: string) => void | Promise<void> = () => {};
  reads = 0;
  lists = 0;
  /** The organizations cannot be listed: the database is gone. */
  listingFails = false;
  async listOrganizations() {
    this.lists++;
    if (this.listingFails) throw new Error('connection terminated unexpectedly');
    return [...this.data.values()].map((d) => ({ id: d.organization.id, slug: d.organization.slug, status: d.organization.status })).sort((a, b) => (a.id < b.id ? -1 : 1));
  }
  async readOrganization(id: string) {
    this.reads++;
    await this.onRead(id);
    if (this.failing.has(id)) throw new Error('connection reset by peer');
    return this.data.get(id);
  }
  async close() {}
}

const schemas = new SchemaSet();

export function setup() {
  const fixture = new PlatformFixture();
  const event = fixture.event({ name: 'Summit', slug: 'summit' });
  const session = fixture.session(event, { name: 'Keynote' });
  fixture.bill(session, fixture.speaker({ name: 'Ada' }));
  fixture.teamMember({ fullName: 'Grace' });
  const source = new MemorySource();
  source.data.set(fixture.organization.id, fixture.data());
  const store = new MemoryStore();
  const channel = new InProcessChannel();
  const announced: string[] = [];
  channel.subscribe((id) => announced.push(id));
  const context: BuildContext = {
    source,
    store,
    schemas,
    channel,
    publicBaseUrl: 'https://events.example.com',
    builderVersion: 'test',
    now: () => new Date('2026-11-21T10:00:00Z'),
  };
  return { fixture, source, store, context, announced, orgId: fixture.organization.id };
}
