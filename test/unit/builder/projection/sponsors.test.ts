// docs/api.md §2 Sponsor; docs/api.md §4 GET /sponsors (pool) and GET /events/{idOrSlug}/sponsors.
import { describe, expect, it } from 'vitest';
import { PlatformFixture } from '../../../support/platform-fixture.ts';
import { project, withExtraColumns } from '../../../support/projection.ts';

describe('/sponsors (the organization pool)', () => {
  it('lists every sponsor by name, ties by id, with tier null and sortOrder 0', () => {
    const fixture = new PlatformFixture();
    const event = fixture.event();
    const zeta = fixture.sponsor({ name: 'Zeta', isOrganizationSponsor: true });
    const twinB = fixture.sponsor({ name: 'Twin' });
    const twinA = fixture.sponsor({ name: 'Twin' });
    const lower = fixture.sponsor({ name: 'acme' });
    fixture.place(event, zeta, { tier: 'Gold', sortOrder: 7 });

    const { sponsors } = project(fixture);

    expect(sponsors.map((sponsor) => sponsor.id)).toEqual([twinB.id, twinA.id, zeta.id, lower.id]);
    expect(sponsors.every((sponsor) => sponsor.tier === null && sponsor.sortOrder === 0)).toBe(true);
    expect(sponsors.map((sponsor) => sponsor.isOrganizationSponsor)).toEqual([false, false, true, false]);
  });

  it('builds each sponsor field by field', () => {
    const fixture = new PlatformFixture();
    const logo = fixture.image();
    const row = fixture.sponsor({ name: 'Initech', description: 'Printers.', logo, websiteUrl: 'https://initech.example' });
    withExtraColumns(row, { contactEmail: 'sales@initech.example', contractValue: 10_000 });
    expect(project(fixture).sponsors).toEqual([
      {
        id: row.id,
        name: 'Initech',
        description: 'Printers.',
        logo,
        websiteUrl: 'https://initech.example',
        tier: null,
        sortOrder: 0,
        isOrganizationSponsor: false,
      },
    ]);
  });
});

describe('/events/{id}/sponsors', () => {
  it('orders by the event sortOrder, then name, then id, with tiers exactly as typed', () => {
    const fixture = new PlatformFixture();
    const event = fixture.event();
    const gold = fixture.sponsor({ name: 'Zeta', isOrganizationSponsor: true });
    const twinB = fixture.sponsor({ name: 'Twin' });
    const twinA = fixture.sponsor({ name: 'Twin' });
    const beta = fixture.sponsor({ name: 'Beta' });
    fixture.place(event, twinA, { tier: null, sortOrder: 2 });
    fixture.place(event, beta, { tier: '  silver ', sortOrder: 2 });
    fixture.place(event, twinB, { tier: 'Bronze', sortOrder: 2 });
    fixture.place(event, gold, { tier: 'GOLD 🏆', sortOrder: -1 });

    const [detail] = project(fixture).events;

    expect(detail!.sponsors.map((sponsor) => [sponsor.id, sponsor.tier, sponsor.sortOrder, sponsor.isOrganizationSponsor])).toEqual([
      [gold.id, 'GOLD 🏆', -1, true],
      [beta.id, '  silver ', 2, false],
      [twinB.id, 'Bronze', 2, false],
      [twinA.id, null, 2, false],
    ]);
  });

  it('ignores placements on other events and placements of unknown sponsors', () => {
    const fixture = new PlatformFixture();
    const event = fixture.event();
    const other = fixture.event();
    const sponsor = fixture.sponsor({ name: 'Elsewhere' });
    fixture.place(other, sponsor);
    fixture.eventSponsors.push({ eventId: event.id, sponsorId: fixture.nextId(), tier: 'Gold', sortOrder: 0 });

    const details = project(fixture).events;

    expect(details.find((detail) => detail.id === event.id)!.sponsors).toEqual([]);
    expect(details.find((detail) => detail.id === other.id)!.sponsors.map((s) => s.id)).toEqual([sponsor.id]);
  });
});
