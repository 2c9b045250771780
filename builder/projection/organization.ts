// docs/api.md §2 Organization: the public profile. Its `email` is the public contact e-mail, the one
// e-mail the API publishes (docs/api.md §1 rule 5); `status` is the gateway's business, not a field.
import type { OrganizationRow } from '../platform/rows.ts';
import type { Organization } from '../../snapshot/schema-types.ts';
import { projectImage } from './image.ts';
import { organizationPublicUrl } from './public-url.ts';

export function projectOrganizationProfile(row: OrganizationRow, publicBaseUrl: string): Organization {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    description: row.description ?? null,
    logo: projectImage(row.logo),
    cover: projectImage(row.cover),
    website: row.website ?? null,
    email: row.email ?? null,
    phone: row.phone ?? null,
    address: row.address ?? null,
    city: row.city ?? null,
    country: row.country ?? null,
    latitude: row.latitude ?? null,
    longitude: row.longitude ?? null,
    publicUrl: organizationPublicUrl(publicBaseUrl, row.slug),
  };
}
