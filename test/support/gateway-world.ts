// The set-up the gateway's route suites share: a harness (gateway-fixtures.ts startHarness: the
// embedded parts, or S3 through the CDN with Redis in the integration-production project) started
// before the file's tests and closed after them, one organization published into it, and a key of
// that organization. A file calls one of these at its top level and states only what is special to
// it (the harness's options, the organization); what they return is filled in by their beforeAll,
// so it is read inside tests and hooks, never at the top level.
import { afterAll, beforeAll } from 'vitest';
import { acmeFixture, type AcmeWorld, API, type CallOptions, type GatewayHarness, type HarnessOptions, publishFixture, type Reply, startHarness } from './gateway-fixtures.ts';
import { PlatformFixture } from './platform-fixture.ts';

export interface HarnessWorld {
  readonly harness: GatewayHarness;
}

export interface PublishedWorld extends HarnessWorld {
  /** The organization published before the first test. */
  readonly fixture: PlatformFixture;
  /** A key of that organization. */
  readonly key: string;
  /** A request to `path` below the API base (e.g. `/events?timing=all`) with that key, unless `options` name another. */
  call(path: string, options?: CallOptions): Promise<Reply>;
}

export interface AcmeGatewayWorld extends PublishedWorld {
  /** The acme organization's events (acmeFixture). */
  readonly events: AcmeWorld;
}

/** Reads `value()` once the file's beforeAll has set it. */
function filledIn<T>(value: () => T | undefined): T {
  const set = value();
  if (set === undefined) throw new Error('the gateway world is set up in beforeAll: read it inside a test or a hook');
  return set;
}

/** A harness started before the file's tests and closed after them. */
export function useHarness(options: HarnessOptions = {}): HarnessWorld {
  let harness: GatewayHarness | undefined;
  beforeAll(async () => {
    harness = await startHarness(options);
  });
  afterAll(async () => {
    await harness?.close();
  });
  return {
    get harness() {
      return filledIn(() => harness);
    },
  };
}

/**
 * A harness, and `organization()`'s fixture published into it before the file's tests (at the
 * harness's clock's start, as the builder would), with a key made for it.
 */
export function usePublishedOrganization(organization: () => PlatformFixture, options: HarnessOptions = {}): PublishedWorld {
  const world = useHarness(options);
  let published: { fixture: PlatformFixture; key: string } | undefined;
  beforeAll(async () => {
    const fixture = organization();
    await publishFixture(world.harness.store, fixture);
    published = { fixture, key: await world.harness.keyFor(fixture.organization.id) };
  });
  return {
    get harness() {
      return world.harness;
    },
    get fixture() {
      return filledIn(() => published).fixture;
    },
    get key() {
      return filledIn(() => published).key;
    },
    call(path, callOptions = {}) {
      return world.harness.call(`${API}${path}`, { key: filledIn(() => published).key, ...callOptions });
    },
  };
}

/** usePublishedOrganization with the acme organization (acmeFixture): something in every resource. */
export function useAcmeWorld(options: HarnessOptions = {}): AcmeGatewayWorld {
  let events: AcmeWorld | undefined;
  const world = usePublishedOrganization(() => {
    const fixture = new PlatformFixture();
    events = acmeFixture(fixture);
    return fixture;
  }, options);
  return {
    get harness() {
      return world.harness;
    },
    get fixture() {
      return world.fixture;
    },
    get key() {
      return world.key;
    },
    call: (path, callOptions) => world.call(path, callOptions),
    get events() {
      return filledIn(() => events);
    },
  };
}
