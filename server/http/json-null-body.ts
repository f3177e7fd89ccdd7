/**
 * A JSON body is an object or an array, with one exception: a body of exactly `null` on an operation that
 * takes no body. The Node.js SDK `voucherify` sends its calls with `json: true`, and for the calls that
 * carry nothing (enabling or disabling a voucher by code) the `request` library then writes a body of
 * `null`; the public API answers those calls, so this server takes such a body as no body at all. Where an
 * operation does take a body, `null` is still refused as the body it is not.
 */
import type { RequestHandler } from 'express';

const NULL_BODY = 'jsonNullBody';

function parseFailure(): Error {
  // The error the body parser raises in strict mode, so that it is answered the same way.
  return Object.assign(new SyntaxError('The request body is neither a JSON object nor an array'), { type: 'entity.parse.failed', status: 400 });
}

/** Runs after `express.json({ strict: false })`: sets a `null` body aside and refuses any other bare value. */
export const setAsideNullBody: RequestHandler = (req, res, next) => {
  if (req.body === null) {
    req.body = undefined;
    res.locals[NULL_BODY] = true;
  } else if (req.body !== undefined && typeof req.body !== 'object') {
    return next(parseFailure());
  }
  next();
};

/** Runs after the request validator found the operation: a `null` body for one that takes a body is refused. */
export const refuseNullBodyWhereOneIsTaken: RequestHandler = (req, res, next) => {
  const operation = (req as { openapi?: { schema?: { requestBody?: unknown } } }).openapi?.schema;
  if (res.locals[NULL_BODY] === true && operation?.requestBody) return next(parseFailure());
  next();
};
