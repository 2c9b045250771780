// Headers every answer of the admin port carries, whatever answers it (the API, the console, an
// error, /healthz, /metrics): registered once, first, by the admin app (app.ts). An admin answer
// may hold a secret shown once (a new key, webhook secret or admin credential), and every one is
// behind a credential: no cache, shared or private, may keep it (docs/design.md "Admin API and console").
// nosniff: a browser never reads an answer as another type than the one it is sent as.
import type { RequestHandler } from 'express';

export function adminAnswerHeaders(): RequestHandler {
  return function adminAnswerHeaders(_req, res, next) {
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    next();
  };
}
