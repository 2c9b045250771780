// Who made an admin request, as the audit trail records it (records/actor.ts Attribution): the actor
// the credential check found, the door (the JSON API or the console), the request's id and the
// client's address as the admin port saw it.
import { randomUUID } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import type { Attribution, Door } from '../records/actor.ts';
import { actorOf } from './request-actor.ts';

/** A client's own X-Request-Id is kept when it is short printable text; anything else is replaced. */
const CLIENT_REQUEST_ID = /^[\x21-\x7e]{1,128}$/;

/** Gives every admin request an id, answered in X-Request-Id, so a client can find its entry in the trail. */
export function requestIds(): RequestHandler {
  return function requestId(req, res, next) {
    const offered = req.get('x-request-id');
    const id = offered !== undefined && CLIENT_REQUEST_ID.test(offered) ? offered : randomUUID();
    res.locals.requestId = id;
    res.setHeader('X-Request-Id', id);
    next();
  };
}

export function requestAttribution(req: Request, res: Response, door: Door): Attribution {
  const requestId = res.locals.requestId as string | undefined;
  const clientAddress = req.socket.remoteAddress;
  return { actor: actorOf(res), door, ...(requestId !== undefined ? { requestId } : {}), ...(clientAddress !== undefined ? { clientAddress } : {}) };
}
