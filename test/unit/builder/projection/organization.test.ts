// docs/api.md §2 Organization: the public profile, with the public contact e-mail (docs/api.md §1 rule 5).
import { describe, expect, it } from 'vitest';
import { PlatformFixture } from '../../../support/platform-fixture.ts';
import { project, withExtraColumns } from '../../../support/projection.ts';

describe('organization', () => {
  it('copies the profile field by field, keeps the contact e-mail and adds publicUrl', () => {
    const fixture = new PlatformFixture({
      name: 'Acme Events',
      slug: 'acme events',
      description: 'We meet.',
      website: 'https://acme.example',
      email: 'hello@acme.example',
      phone: '+49 30 1234',
      address: 'Main St 1',
      city: 'Berlin',
      country: 'DE',
      latitude: 52.52,
      longitude: 13.405,
      status: 'active',
    });
    fixture.organization.logo = fixture.image();
    withExtraColumns(fixture.organization, { ownerEmail: 'owner@acme.example', billingPlan: 'gold' });

    const { organization } = project(fixture);

    expect(organization).toEqual({
      id: fixture.organization.id,
      name: 'Acme Events',
      slug: 'acme events',
      description: 'We meet.',
      logo: fixture.organization.logo,
      cover: null,
      website: 'https://acme.example',
      email: 'hello@acme.example',
      phone: '+49 30 1234',
      address: 'Main St 1',
      city: 'Berlin',
      country: 'DE',
      latitude: 52.52,
      longitude: 13.405,
      publicUrl: 'https://events.example.com/acme%20events',
    });
  });

  it('turns absent values into null, never undefined', () => {
    const fixture = new PlatformFixture({ email: null });
    // A reader that leaves a column out must still not produce a missing field.
    delete (fixture.organization as Partial<typeof fixture.organization>).phone;
    const { organization } = project(fixture);
    expect(organization.email).toBeNull();
    expect(organization.phone).toBeNull();
    expect(organization.logo).toBeNull();
  });
});
