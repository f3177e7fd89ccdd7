/**
 * The one error shape of the interface, and the mapper that turns every failure (domain rules, the
 * validator, the body parser, anything unexpected) into it.
 */
import type { ErrorRequestHandler, Response } from 'express';
import type { components } from '../../generated/openapi.js';
import { DomainError, type DomainErrorKind } from '../domain/errors.js';
import { FRESH } from '../store/fresh.js';

export type ErrorBody = components['schemas']['Error'];

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly key: string,
    message: string,
    readonly details: string,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

const STATUS_OF_KIND: Record<DomainErrorKind, number> = { invalid: 400, not_found: 404, duplicate: 409 };

export function sendError(res: Response, status: number, key: string, message: string, details: string, extra: Partial<ErrorBody> = {}) {
  const body: ErrorBody = {
    code: status,
    key,
    message,
    details,
    request_id: String(res.locals.requestId ?? ''),
    ...extra,
  };
  res.status(status).json(body);
}

interface ValidatorIssue {
  path?: string;
  message?: string;
}

interface ValidatorError {
  status: number;
  errors?: ValidatorIssue[];
  message?: string;
}

function isValidatorError(error: unknown): error is ValidatorError {
  return typeof error === 'object' && error !== null && 'status' in error && Array.isArray((error as ValidatorError).errors);
}

function describeIssues(issues: ValidatorIssue[]): string {
  return issues
    .map((issue) => {
      const where = (issue.path ?? '').replace(/^\//, '').replace(/^params\//, 'path/');
      return where ? `'${where}' ${issue.message ?? 'is invalid'}` : (issue.message ?? 'is invalid');
    })
    .join('; ');
}

const isMultipart = (contentType: string | undefined) => /^\s*multipart\//i.test(contentType ?? '');

function mapValidatorError(res: Response, error: ValidatorError): void {
  const issues = error.errors ?? [];
  switch (error.status) {
    case 400: {
      const inParameters = issues.length > 0 && issues.every((issue) => /^\/(query|params|path)\b/.test(issue.path ?? ''));
      return inParameters
        ? sendError(res, 400, 'invalid_query_params', 'Invalid query params', describeIssues(issues))
        : sendError(res, 400, 'invalid_payload', 'Invalid payload', describeIssues(issues));
    }
    case 404:
      return sendError(res, 404, 'route_not_found', 'Resource not found', `No operation at ${res.req.method} ${res.req.path}`);
    case 405:
      return sendError(res, 405, 'method_not_allowed', 'Method Not Allowed', `${res.req.method} is not supported by ${res.req.path}`);
    case 413:
      return sendError(res, 413, 'query_too_large', 'Payload Too Large', 'The request body exceeds 1 MB');
    case 415:
      return sendError(res, 415, 'unsupported_media_type', 'Unsupported Media Type', describeIssues(issues) || 'Unsupported media type');
    case 500:
      // The validator's multipart step answers a body it cannot parse (cut short, a malformed part header, a
      // part it does not take) with a 500: that is the client's body, not a broken response.
      if (isMultipart(res.req.headers['content-type']) && !issues.some((issue) => issue.path?.startsWith('/response'))) {
        return sendError(res, 400, 'invalid_payload', 'Invalid payload', `The multipart body could not be read: ${error.message ?? describeIssues(issues)}`);
      }
      console.error(`[${res.locals.requestId}] contract violation`, JSON.stringify(issues));
      return sendError(res, 500, 'internal_error', 'Internal Server Error', `The response broke the contract: ${describeIssues(issues)}`);
    default:
      console.error(`[${res.locals.requestId}] contract violation`, JSON.stringify(issues));
      return sendError(res, 500, 'internal_error', 'Internal Server Error', `The response broke the contract: ${describeIssues(issues)}`);
  }
}

/** What the body parser (body-parser, raw-body, and http-errors around them) puts on the errors it raises. */
interface ParserError {
  type?: string;
  status?: number;
  statusCode?: number;
  expose?: boolean;
}

const PARSER_ERRORS: Record<string, [number, string, string, string]> = {
  'entity.parse.failed': [400, 'invalid_payload', 'Invalid payload', 'The request body is not valid JSON'],
  'entity.too.large': [413, 'query_too_large', 'Payload Too Large', 'The request body exceeds 1 MB'],
  'encoding.unsupported': [415, 'unsupported_media_type', 'Unsupported Media Type', 'Unsupported content encoding'],
  'charset.unsupported': [415, 'unsupported_media_type', 'Unsupported Media Type', 'Unsupported charset'],
  'request.aborted': [400, 'invalid_payload', 'Invalid payload', 'The request body was aborted'],
  'request.size.invalid': [400, 'invalid_payload', 'Invalid payload', 'The request body does not match its Content-Length'],
};

/**
 * The error shape for an error raised while reading the body, or undefined when it is not one. A client
 * error the parser raised without a `type` of its own is answered by its status: a body that does not
 * decode in its Content-Encoding reaches here as the decompressor's error (`Z_DATA_ERROR`…), to which the
 * parser gave status 400 and nothing else.
 */
export function bodyReadingError(error: unknown, contentEncoding: string | undefined): HttpError | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const parser = error as ParserError;
  const known = parser.type ? PARSER_ERRORS[parser.type] : undefined;
  if (known) return new HttpError(...known);
  const status = parser.status ?? parser.statusCode;
  if (typeof status !== 'number' || status < 400 || status > 499 || parser.expose !== true) return undefined;
  switch (status) {
    case 400: {
      const coding = contentEncoding?.trim().toLowerCase();
      const details = coding && coding !== 'identity' ? `The request body is not valid ${coding} data` : 'The request body could not be read';
      return new HttpError(400, 'invalid_payload', 'Invalid payload', details);
    }
    case 413:
      return new HttpError(...PARSER_ERRORS['entity.too.large']!);
    case 415:
      return new HttpError(415, 'unsupported_media_type', 'Unsupported Media Type', 'The request body cannot be read in its media type or encoding');
    default:
      return undefined;
  }
}

export const errorMapper: ErrorRequestHandler = (error: unknown, req, res, _next) => {
  if (res.headersSent) {
    res.end();
    return;
  }
  if (error instanceof DomainError) {
    return sendError(res, STATUS_OF_KIND[error.kind], error.key, error.message, error.details, {
      ...FRESH,
      ...(error.resourceId !== undefined && { resource_id: error.resourceId }),
      ...(error.resourceType !== undefined && { resource_type: error.resourceType }),
      ...(error.customMessage !== undefined && { error: { message: error.customMessage } }),
    });
  }
  if (error instanceof HttpError) return sendError(res, error.status, error.key, error.message, error.details);
  if (isValidatorError(error)) return mapValidatorError(res, error);
  const reading = bodyReadingError(error, req.headers['content-encoding']);
  if (reading) return sendError(res, reading.status, reading.key, reading.message, reading.details);
  console.error(`[${res.locals.requestId}] unexpected error`, error);
  return sendError(res, 500, 'internal_error', 'Internal Server Error', 'An unexpected error occurred');
};
