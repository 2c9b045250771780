// The organization a request may read: the one its authenticated key belongs to (spec §5.3).
// Nothing in the URL names an organization.
import type { Response } from 'express';
import type { AccessLocals } from '../access/middleware.ts';

export function organizationOf(res: Response<unknown, Partial<AccessLocals>>): string {
  const key = res.locals.key;
  // A wiring mistake, not a client's: the resource routes are mounted behind authenticate().
  if (key === undefined) throw new Error('resource route reached without an authenticated key');
  return key.organizationId;
}
