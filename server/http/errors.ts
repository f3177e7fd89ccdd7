/**
 * The one error shape of the interface, and the mapper that turns every failure (domain rules, the
 * validator, the body parser, anything unexpected) into it.
 */
import type { ErrorRequestHandler, Response } from 'express';
import type { components } from '../../generated/openapi.js';
import { DomainError, type DomainErrorKind } from '../domain/errors.js';

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
    default:
      console.error(`[${res.locals.requestId}] contract violation`, JSON.stringify(issues));
      return sendError(res, 500, 'internal_error', 'Internal Server Error', `The response broke the contract: ${describeIssues(issues)}`);
  }
}

interface ParserError {
  type?: string;
  status?: number;
}

const PARSER_ERRORS: Record<string, [number, string, string, string]> = {
  'entity.parse.failed': [400, 'invalid_payload', 'Invalid payload', 'The request body is not valid JSON'],
  'entity.too.large': [413, 'query_too_large', 'Payload Too Large', 'The request body exceeds 1 MB'],
  'encoding.unsupported': [415, 'unsupported_media_type', 'Unsupported Media Type', 'Unsupported content encoding'],
  'charset.unsupported': [415, 'unsupported_media_type', 'Unsupported Media Type', 'Unsupported charset'],
  'request.aborted': [400, 'invalid_payload', 'Invalid payload', 'The request body was aborted'],
  'request.size.invalid': [400, 'invalid_payload', 'Invalid payload', 'The request body does not match its Content-Length'],
};

export const errorMapper: ErrorRequestHandler = (error: unknown, _req, res, _next) => {
  if (res.headersSent) {
    res.end();
    return;
  }
  if (error instanceof DomainError) {
    return sendError(res, STATUS_OF_KIND[error.kind], error.key, error.message, error.details, {
      ...(error.resourceId !== undefined && { resource_id: error.resourceId }),
      ...(error.resourceType !== undefined && { resource_type: error.resourceType }),
    });
  }
  if (error instanceof HttpError) return sendError(res, error.status, error.key, error.message, error.details);
  const parserType = (error as ParserError | null)?.type;
  const parserError = parserType ? PARSER_ERRORS[parserType] : undefined;
  if (parserError) return sendError(res, ...parserError);
  if (isValidatorError(error)) return mapValidatorError(res, error);
  console.error(`[${res.locals.requestId}] unexpected error`, error);
  return sendError(res, 500, 'internal_error', 'Internal Server Error', 'An unexpected error occurred');
};
