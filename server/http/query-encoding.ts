import type { RequestHandler } from 'express';

/**
 * The validator refuses a query value holding any raw RFC 3986 reserved character, yet ordinary clients
 * send some raw: HTML forms and URLSearchParams write a space as `+`, and encodeURIComponent (which
 * openapi-fetch uses) leaves `!'()*` as they are. Percent-encoding those few before validation means the
 * same thing to every parser and lets such clients search for "O'Brien (VIP)".
 */
const LEFT_RAW = /[!'()*+]/g;

function encodeQuery(url: string): string {
  const start = url.indexOf('?');
  if (start === -1) return url;
  const query = url.slice(start + 1).replace(LEFT_RAW, (char) => (char === '+' ? '%20' : `%${char.charCodeAt(0).toString(16).toUpperCase()}`));
  return `${url.slice(0, start + 1)}${query}`;
}

export const normalizeQueryEncoding: RequestHandler = (req, _res, next) => {
  req.url = encodeQuery(req.url);
  req.originalUrl = encodeQuery(req.originalUrl);
  next();
};
