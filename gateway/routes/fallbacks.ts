// Requests no route answers (docs/design.md decisions table): 404 NOT_FOUND for any unknown path outside
// the API (inside it, gateway/routes/api-router.ts answers 404 and 405 itself).
import type { RequestHandler } from 'express';
import { notFound } from '../errors.ts';

export function rejectUnknownPath(): RequestHandler {
  return function notFoundHandler() {
    throw notFound();
  };
}
