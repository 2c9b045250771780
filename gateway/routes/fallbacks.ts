// Requests no route answers (DESIGN.md gaps table): 405 with Allow for a known path asked with
// another method, 404 NOT_FOUND for any unknown path, inside the API or outside it.
import type { RequestHandler } from 'express';
import { methodNotAllowed, notFound } from '../errors.ts';

/** OPTIONS is answered by cors() before any route, so GET and HEAD are all a route serves. */
const ALLOW = 'GET, HEAD, OPTIONS';

export function rejectOtherMethods(): RequestHandler {
  return function methodNotAllowedHandler() {
    throw methodNotAllowed(ALLOW);
  };
}

export function rejectUnknownPath(): RequestHandler {
  return function notFoundHandler() {
    throw notFound();
  };
}
