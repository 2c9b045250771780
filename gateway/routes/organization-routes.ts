// The organization-wide resources (spec §4): GET /organization, /team, /speakers, /sponsors,
// each the stored object byte for byte, tagged with its content hash.
import type { RequestHandler } from 'express';
import type { OrganizationResources, StoredPath } from '../resources.ts';
import { organizationOf } from './key-organization.ts';
import { sendRepresentation } from './respond.ts';

export function storedResource(resources: OrganizationResources, path: StoredPath): RequestHandler {
  return async function serveStoredResource(_req, res) {
    sendRepresentation(res, await resources.stored(organizationOf(res), path));
  };
}
