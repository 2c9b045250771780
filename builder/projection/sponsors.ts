// docs/api.md §2 Sponsor, for the organization's pool (`/sponsors`) and for one event's list. Built
// field by field, like every projected object, so no extra column can leak.
import type { EventSponsorRow, SponsorRow } from '../platform/rows.ts';
import type { Sponsor } from '../../snapshot/schema-types.ts';
import { projectImage } from './image.ts';
import { ordered } from './order.ts';

function projectSponsor(row: SponsorRow, placement: { tier: string | null; sortOrder: number }): Sponsor {
  return {
    id: row.id,
    name: row.name,
    description: row.description ?? null,
    logo: projectImage(row.logo),
    websiteUrl: row.websiteUrl ?? null,
    tier: placement.tier,
    sortOrder: placement.sortOrder,
    isOrganizationSponsor: row.isOrganizationSponsor === true,
  };
}

/** docs/api.md §4 GET /sponsors: every sponsor of the organization by name (ties: id), `tier` null, `sortOrder` 0. */
export function sponsorPool(rows: readonly SponsorRow[]): Sponsor[] {
  const pool = rows.map((row) => projectSponsor(row, { tier: null, sortOrder: 0 }));
  return ordered(
    pool,
    (sponsor) => sponsor.name,
    (sponsor) => sponsor.id,
  );
}

/**
 * docs/api.md §4 GET /events/{idOrSlug}/sponsors: "in the order the organizer arranged them, with
 * tiers" — by the event's sortOrder, ties by name then id so the order never depends on row
 * order. The tier is free text exactly as typed. Placements of unknown sponsors are ignored.
 */
export function eventSponsors(placements: readonly EventSponsorRow[], sponsorsById: ReadonlyMap<string, SponsorRow>): Sponsor[] {
  const sponsors: Sponsor[] = [];
  for (const placement of placements) {
    const sponsor = sponsorsById.get(placement.sponsorId);
    if (sponsor) sponsors.push(projectSponsor(sponsor, { tier: placement.tier ?? null, sortOrder: placement.sortOrder }));
  }
  return ordered(
    sponsors,
    (sponsor) => sponsor.sortOrder,
    (sponsor) => sponsor.name,
    (sponsor) => sponsor.id,
  );
}
