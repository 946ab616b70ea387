import type { RequestHandler } from 'express';

/**
 * Headers of every response the service sends, set once for the whole app (console pages, citation pages
 * `/c/{token}`, short-link pages `/l/{code}`, the API docs at `/docs`, JSON alike): never framed
 * (clickjacking), no content sniffing, and the referrer stays on this origin (sign-in link tokens and ids
 * never leak to the sites pages link to). A route may tighten one (citation pages send no referrer at all).
 */
export const securityHeaders: RequestHandler = (_req, res, next) => {
  res.set({
    'X-Frame-Options': 'DENY',
    'Content-Security-Policy': "frame-ancestors 'none'",
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'same-origin',
  });
  next();
};
