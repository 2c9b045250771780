// `publicUrl` fields: the platform's public pages (docs/platform.md "Public pages"), where a visitor
// reads about the organization and registers for an event (docs/api.md §1 rule 8).

/** PLATFORM_PUBLIC_URL without trailing slashes, so `https://x/` and `https://x` agree. */
function baseOf(publicBaseUrl: string): string {
  return publicBaseUrl.replace(/\/+$/, '');
}

export function organizationPublicUrl(publicBaseUrl: string, organizationSlug: string): string {
  return `${baseOf(publicBaseUrl)}/${encodeURIComponent(organizationSlug)}`;
}

export function eventPublicUrl(publicBaseUrl: string, organizationSlug: string, eventSlug: string): string {
  return `${organizationPublicUrl(publicBaseUrl, organizationSlug)}/events/${encodeURIComponent(eventSlug)}`;
}
