// One small organization published into a directory store, with one key for it, as the gateway's
// single-request benchmarks (gateway-ab.ts, allocations.ts) serve it: a profile and three team
// members, GET /organization about 500 bytes.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';

export const ORGANIZATION_PATH = '/api/integration/v1/organization';

export interface OneOrganization {
  storeDir: string;
  keyFile: string;
  /** What every request sends: the key and an allowed browser origin. */
  headers: Record<string, string>;
}

/** Publishes it under `dir` (snapshots/ and keys.json). */
export async function publishOneOrganization(dir: string): Promise<OneOrganization> {
  const { PlatformFixture } = await import('../test/support/platform-fixture.ts');
  const { projectOrganization, resourcesOf } = await import('../builder/projection/index.ts');
  const { publishSnapshot } = await import('../builder/publish.ts');
  const { FileKeyStore } = await import('../records/keys/file-store.ts');
  const { DirectoryStore } = await import('../snapshot/stores/directory.ts');
  const fixture = new PlatformFixture({ id: randomUUID(), name: 'Org', slug: 'org', description: 'A community.' });
  for (let i = 0; i < 3; i++) fixture.teamMember({ fullName: `Member ${i}`, title: 'Organizer', sortOrder: i });
  const projected = projectOrganization(fixture.data(), { publicBaseUrl: 'https://events.example' });
  const storeDir = join(dir, 'snapshots');
  await publishSnapshot(new DirectoryStore(storeDir), {
    organizationId: fixture.organization.id,
    organizationSlug: 'org',
    state: 'active',
    resources: resourcesOf(projected).map(({ path, value }) => ({ path, value })),
    slugs: projected.slugs,
    trigger: 'manual',
    now: new Date(),
  });
  const keyFile = join(dir, 'keys.json');
  const { secret } = await new FileKeyStore(keyFile).create({ organizationId: fixture.organization.id, label: 'bench', origins: ['https://site.example'] });
  return { storeDir, keyFile, headers: { 'x-api-key': secret, origin: 'https://site.example' } };
}
