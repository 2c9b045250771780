// Headers every console answer carries beside the admin port's own (admin/answer-headers.ts: never
// cached, never sniffed): pages are never framed, never run inline script, and never leak their
// address (which may name a key) to another site.
import type { RequestHandler } from 'express';

const CONTENT_SECURITY_POLICY = ["default-src 'self'", "frame-ancestors 'none'", "base-uri 'none'", "form-action 'self'", "object-src 'none'"].join('; ');

export function consoleSecurityHeaders(): RequestHandler {
  return function consoleSecurityHeaders(_req, res, next) {
    res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
    res.setHeader('Referrer-Policy', 'no-referrer');
    next();
  };
}
