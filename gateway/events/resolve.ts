// docs/api.md §4 "Path parameter idOrSlug": the event's id, else its slug, looked up in the key's own
// organization's manifest only — there is no other place an event could be found.
import { isUuid } from '../../snapshot/layout.ts';
import { resourcePath } from '../../snapshot/resource-catalog.ts';
import type { ManifestView } from '../snapshot-cache/manifest-view.ts';

export function resolveEventId(manifest: ManifestView, idOrSlug: string): string | undefined {
  // Only a UUID-shaped input counts as an id, so that a decoded "%2F" ("{id}/sessions") can never
  // reach a sub-resource's manifest entry as if it were an event.
  if (isUuid(idOrSlug)) {
    const id = idOrSlug.toLowerCase();
    if (manifest.resources.has(resourcePath.event(id))) return id;
  }
  const id = manifest.slugs.get(idOrSlug);
  return id !== undefined && manifest.resources.has(resourcePath.event(id)) ? id : undefined;
}
