/**
 * Reading request bodies: the encodings taken, the parsers, and the bounds every body meets before the
 * contract validator, the handlers or the store walk it. Everything a client can send is answered with a
 * 4xx here or passed on as an object; nothing reaches a handler as `undefined`.
 */
import express, { type RequestHandler } from 'express';
import { MAX_BODY_DEPTH, metadataProblemIn, nestsDeeperThan } from '../domain/input-limits.js';
import { bodyReadingError, HttpError } from './errors.js';
import { setAsideNullBody } from './json-null-body.js';
import { sequence } from './sequence.js';
import { UPLOAD_LIMITS } from './uploads.js';
import { unkeptValueIn } from './kept-values.js';

/** The largest body taken, after decoding: a compressed body may not expand past it either. */
export const BODY_LIMIT = '1mb';

/**
 * The content codings a body may carry. The parser would also take `zstd` where the Node.js version has
 * it; the contract names one list for every server, so it is refused everywhere.
 */
export const ACCEPTED_ENCODINGS = ['identity', 'gzip', 'deflate', 'br'] as const;

/** The most a body may be, in bytes, as BODY_LIMIT says. */
const BODY_BYTES = 1024 * 1024;

/** The most a multipart upload may be, in bytes: the file, the text fields, and room for the parts' own headers. */
const MULTIPART_BYTES = UPLOAD_LIMITS.fileSize + UPLOAD_LIMITS.fields * UPLOAD_LIMITS.fieldSize + 64 * 1024;

/**
 * A request whose `Content-Length` already says its body is larger than any operation takes is answered 413
 * at once, before its credentials are checked or a byte of its body is read, and its connection is closed:
 * a client declaring 99 999 999 999 bytes no longer holds a connection while the server waits for them. A
 * body in a content coding is left to the parser, which measures it decoded.
 */
export const refuseDeclaredOversize: RequestHandler = (req, res, next) => {
  const declared = req.headers['content-length'];
  if (declared === undefined || (req.headers['content-encoding'] !== undefined && req.headers['content-encoding'].trim().toLowerCase() !== 'identity')) return next();
  const ceiling = /^\s*multipart\//i.test(req.headers['content-type'] ?? '') ? MULTIPART_BYTES : BODY_BYTES;
  if (!(Number(declared) > ceiling)) return next();
  res.setHeader('Connection', 'close');
  next(new HttpError(413, 'query_too_large', 'Payload Too Large', `The request body (Content-Length ${declared}) exceeds the ${ceiling} bytes any operation takes`));
};

/** Whether the request announces a body (of any length, even none): the framing HTTP/1.1 reads a body by. */
function framesBody(headers: NodeJS.Dict<string | string[]>): boolean {
  return headers['transfer-encoding'] !== undefined || headers['content-length'] !== undefined;
}

const acceptedEncoding: RequestHandler = (req, _res, next) => {
  const coding = req.headers['content-encoding'];
  if (coding === undefined || !framesBody(req.headers)) return next();
  const name = coding.trim().toLowerCase();
  if ((ACCEPTED_ENCODINGS as readonly string[]).includes(name)) return next();
  // The body is left unread: Express answers and the connection is closed or drained as usual.
  next(
    new HttpError(415, 'unsupported_media_type', 'Unsupported Media Type', `Unsupported Content-Encoding '${coding}'; accepted: ${ACCEPTED_ENCODINGS.join(', ')}`),
  );
};

/**
 * After the parsers: a request that carried no body (no bytes, or no framing at all, as `curl -X POST`
 * sends it) gets `{}`, which the validator then takes or refuses by the operation's schema, so a handler
 * always gets an object (a `null` set aside gets `{}` too, and is refused after validation where a body is
 * taken). A body nesting deeper than MAX_BODY_DEPTH, or with metadata past its limits, is refused before
 * anything recurses into it; so is one holding text or a number the server cannot keep as sent (http/kept-values.ts).
 */
const boundBody: RequestHandler = (req, _res, next) => {
  if (req.body === undefined) req.body = {};
  if (nestsDeeperThan(req.body, MAX_BODY_DEPTH)) {
    return next(new HttpError(400, 'invalid_payload', 'Invalid payload', `The request body nests objects and arrays more than ${MAX_BODY_DEPTH} levels deep`));
  }
  const metadata = metadataProblemIn(req.body);
  if (metadata) return next(new HttpError(400, 'invalid_payload', 'Invalid payload', `'${metadata[0]}' ${metadata[1]}`));
  const unkept = unkeptValueIn(req.body, true);
  if (unkept !== undefined) return next(new HttpError(400, 'invalid_payload', 'Invalid payload', `'${unkept.where}' ${unkept.why}`));
  next();
};

/** The steps of reading a body, in order. */
const parsers: RequestHandler[] = [
  acceptedEncoding,
  express.json({ limit: BODY_LIMIT, strict: false }),
  setAsideNullBody,
  express.urlencoded({ extended: false, limit: BODY_LIMIT }),
  boundBody,
];

const parse = sequence(parsers);

/** What the validator leaves on a request it matched to an operation. */
interface Matched {
  openapi?: { schema?: { requestBody?: unknown } };
}

/**
 * Reads the body, once the operation is known. An operation that takes no body still has one read (a
 * bare JSON value or broken JSON is refused, as before; the Node.js SDK's `null` is taken as none), but
 * a body it cannot read is refused with a 400, the one client error every operation documents: its
 * contract lists no 413 or 415, which are about a body it does not take.
 */
export const readBody: RequestHandler = (req, res, next) => {
  // Nothing announced, nothing to read: what the parsers would leave (no body, so `{}`), without running them.
  if (!framesBody(req.headers)) {
    req.body = {};
    return next();
  }
  // The validator's preparation leaves `requestBody: null` on an operation that takes none.
  const takesBody = Boolean((req as Matched).openapi?.schema?.requestBody);
  parse(req, res, (error?: unknown) => (error ? next(shaped(error, req.headers['content-encoding'], takesBody)) : next()));
};

function shaped(error: unknown, contentEncoding: string | undefined, takesBody: boolean): unknown {
  const reading = error instanceof HttpError ? error : bodyReadingError(error, contentEncoding);
  if (!reading || takesBody || reading.status === 400) return reading ?? error;
  return new HttpError(400, 'invalid_payload', 'Invalid payload', `${reading.details}; this operation takes no body`);
}

/**
 * The validator's middleware with the body read in it: after it has matched the request to an operation
 * (so the operation decides whether there is a body to read) and before it validates the request.
 */
export function withBodyReading(validator: RequestHandler[]): RequestHandler[] {
  const at = validator.findIndex((handler) => handler.name === 'requestMiddleware');
  if (at < 0) throw new Error('The contract validator has no request validation step to read bodies before');
  return [...validator.slice(0, at), readBody, ...validator.slice(at)];
}
