import type { RequestHandler } from 'express';
import { randomHex } from '../domain/ids.js';
import type { RequestContext } from '../handlers/types.js';

/** The longest `X-Voucherify-Channel` kept; past that it is cut. */
const CHANNEL_AT_MOST = 100;

/**
 * Gives every request an ID (returned in error bodies as `request_id`) and the context of an anonymous
 * caller, which authentication fills in.
 */
export const requestId: RequestHandler = (req, res, next) => {
  const id = `v-${randomHex(10)}`;
  res.locals.requestId = id;
  const context: RequestContext = {
    requestId: id,
    projectId: '',
    apiKey: { name: '', appId: '' },
    reads: req.method === 'GET' || req.method === 'HEAD',
  };
  const channel = req.get('x-voucherify-channel')?.trim().slice(0, CHANNEL_AT_MOST);
  if (channel) context.channel = channel;
  res.locals.context = context;
  next();
};
