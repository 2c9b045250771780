// The projection as the builder calls it, for the unit tests of its rules.
import { projectOrganization, type OrganizationProjection } from '../../builder/projection/index.ts';
import type { PlatformFixture } from './platform-fixture.ts';

export const PUBLIC_BASE_URL = 'https://events.example.com';

export function project(fixture: PlatformFixture): OrganizationProjection {
  return projectOrganization(fixture.data(), { publicBaseUrl: PUBLIC_BASE_URL });
}

/** A row with columns the contract does not name, as a platform view may add at runtime. */
export function withExtraColumns<T extends object>(row: T, extra: Record<string, unknown>): T {
  return Object.assign(row, extra);
}
