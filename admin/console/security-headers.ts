// Headers every console answer carries: pages are never framed, never cached, never run inline
// script, and never leak their address (which may name a key) to another site.
import type { RequestHandler } from 'express';

const CONTENT_SECURITY_POLICY = ["default-src 'self'", "frame-ancestors 'none'", "base-uri 'none'", "form-action 'self'", "object-src 'none'"].join('; ');

export function consoleSecurityHeaders(): RequestHandler {
  return function consoleSecurityHeaders(_req, res, next) {
    res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'no-referrer');
    // A page may show a key's secret once: nothing the console answers is stored. The stylesheet overrides this.
    res.setHeader('Cache-Control', 'no-store');
    next();
  };
}
