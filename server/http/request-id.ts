import { randomBytes } from 'node:crypto';
import type { RequestHandler } from 'express';

/** Gives every request an ID, returned in error bodies as `request_id`. */
export const requestId: RequestHandler = (_req, res, next) => {
  res.locals.requestId = `v-${randomBytes(10).toString('hex')}`;
  next();
};
