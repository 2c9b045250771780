// The actor of one admin request (records/actor.ts), as the admin port's credential check
// (auth.ts) found it, kept on the response for the handlers and the trail; and the one refusal of
// a role, which the API (api.ts) answers as problem+json and the console (console/) as a page.
import type { Response } from 'express';
import { type Actor, type AdminRole, roleAllows } from '../records/actor.ts';
import { adminError } from './errors.ts';

/** The actor the admin port's credential check found for this request. */
export function actorOf(res: Response): Actor {
  const actor = res.locals.actor as Actor | undefined;
  if (actor === undefined) throw new Error('admin request answered before its credential was checked');
  return actor;
}

export function setActor(res: Response, actor: Actor): void {
  res.locals.actor = actor;
}

/** Throws 403 ADMIN_FORBIDDEN unless the request's actor may do what `needed` allows; `what` names it ("POST /keys"). */
export function requireRole(res: Response, needed: AdminRole, what: string): void {
  requireActorRole(actorOf(res), needed, what);
}

/** The same refusal for an actor a door has in hand (operations/operation.ts call). */
export function requireActorRole(actor: Actor, needed: AdminRole, what: string): void {
  if (roleAllows(actor.role, needed)) return;
  throw adminError('ADMIN_FORBIDDEN', `${what} needs the role ${needed} or above; ${actor.name} is ${actor.role}. Nothing was changed.`);
}
