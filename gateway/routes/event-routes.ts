// The event resources (spec §4): GET /events (filtered by timing, ordered, paged per request),
// /events/{idOrSlug} (patched with its clock fields) and its sessions, speakers and sponsors
// (stored arrays, equal to the detail's).
import type { RequestHandler } from 'express';
import { parseEventsQuery } from '../events/query.ts';
import type { EventPart, OrganizationResources } from '../resources.ts';
import { organizationOf } from './key-organization.ts';
import { sendRepresentation } from './respond.ts';

export type Clock = () => number;
type EventParams = { idOrSlug: string };

export function eventList(resources: OrganizationResources, clock: Clock): RequestHandler {
  return async function serveEventList(req, res) {
    // Parameters (400) before the resource (DESIGN.md "order of checks").
    const query = parseEventsQuery(req.query);
    sendRepresentation(res, await resources.eventList(organizationOf(res), query, clock()));
  };
}

export function eventDetail(resources: OrganizationResources, clock: Clock): RequestHandler<EventParams> {
  return async function serveEventDetail(req, res) {
    sendRepresentation(res, await resources.event(organizationOf(res), req.params.idOrSlug, clock()));
  };
}

export function eventPart(resources: OrganizationResources, part: EventPart): RequestHandler<EventParams> {
  return async function serveEventPart(req, res) {
    sendRepresentation(res, await resources.eventPart(organizationOf(res), req.params.idOrSlug, part));
  };
}
