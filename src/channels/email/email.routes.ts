import express, { type RequestHandler, type Router } from 'express';
import type { Config } from '../../config/env';
import { SIGNATURE_HEADER } from '../../domain/signature';
import { CLICK_PATH, OPEN_PATH, type EmailTrackingService } from './email-tracking.service';
import type { InboundEmailService } from './inbound-email.service';

/** The open pixel: a transparent 1×1 GIF. */
const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

/** Where the mail relay posts inbound email (raw MIME). */
export const INBOUND_EMAIL_PATH = '/hooks/email/inbound';

/**
 * The email channel's HTTP surface for machines that are not API clients, kept out of /v1 and the
 * OpenAPI document: the mail relay's inbound hook (raw MIME body, Service-Signature with
 * EMAIL_INBOUND_SECRET) and the tracking pixel and click redirect that mail clients fetch. Errors use the
 * API's error object (the app's error handler).
 */
export function registerEmailRoutes(router: Router, deps: { services: { inboundEmail: InboundEmailService; emailTracking: EmailTrackingService }; config: Config }): void {
  const { inboundEmail, emailTracking } = deps.services;
  const rawBody = express.raw({ type: () => true, limit: deps.config.email.inboundMaxBytes });

  // The signature header is checked before the body is read: a request that cannot verify is refused
  // without reading (and the connection closed), so an unsigned 9 MB post costs nothing.
  const signatureFirst: RequestHandler = (req, res, next) => {
    try {
      req.routeTemplate = INBOUND_EMAIL_PATH;
      inboundEmail.checkSignatureHeader({ signature: req.header(SIGNATURE_HEADER) });
      next();
    } catch (err) {
      res.set('Connection', 'close');
      next(err);
    }
  };

  router.post(INBOUND_EMAIL_PATH, signatureFirst, rawBody, async (req, res, next) => {
    try {
      req.routeTemplate = INBOUND_EMAIL_PATH;
      const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const result = await inboundEmail.receiveInbound({ rawBody: body, signature: req.header(SIGNATURE_HEADER) });
      res.status(200).json(result);
    } catch (err) {
      next(err);
    }
  });

  router.get(`${OPEN_PATH}/:token`, async (req, res, next) => {
    try {
      req.routeTemplate = `${OPEN_PATH}/{token}`;
      await emailTracking.recordOpen({ token: req.params.token! });
      res.status(200).set({ 'Content-Type': 'image/gif', 'Cache-Control': 'no-store, max-age=0' }).send(PIXEL);
    } catch (err) {
      next(err);
    }
  });

  router.get(`${CLICK_PATH}/:token`, async (req, res, next) => {
    try {
      req.routeTemplate = `${CLICK_PATH}/{token}`;
      const url = typeof req.query.url === 'string' ? req.query.url : '';
      const { location } = await emailTracking.recordClick({ token: req.params.token!, url });
      res.set('Cache-Control', 'no-store').redirect(302, location);
    } catch (err) {
      next(err);
    }
  });
}
