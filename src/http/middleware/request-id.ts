import { randomBytes } from 'node:crypto';
import type { RequestHandler } from 'express';

/** Every response carries Request-Id; error objects repeat it as request_id. */
export const requestId: RequestHandler = (req, res, next) => {
  req.requestId = `req_${randomBytes(12).toString('base64url')}`;
  res.setHeader('Request-Id', req.requestId);
  next();
};
