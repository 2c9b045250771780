// The actor of one admin request (records/actor.ts), as the admin port's credential check
// (auth.ts) found it, kept on the response for the handlers and the trail.
import type { Response } from 'express';
import type { Actor } from '../records/actor.ts';

/** The actor the admin port's credential check found for this request. */
export function actorOf(res: Response): Actor {
  const actor = res.locals.actor as Actor | undefined;
  if (actor === undefined) throw new Error('admin request answered before its credential was checked');
  return actor;
}

export function setActor(res: Response, actor: Actor): void {
  res.locals.actor = actor;
}
