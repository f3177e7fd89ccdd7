/**
 * The server's log: pino, one JSON object a line on standard output, or readable lines while developing
 * (`LOG_FORMAT=pretty`, through pino-pretty). Every request gets one line when its response is done, made by
 * pino-http: its request ID (the one error bodies carry), method and path, operation, project, status and
 * duration. Query strings and headers are never logged: they carry customers' data and keys.
 */
import type { Request, RequestHandler, Response } from 'express';
import { pino, type DestinationStream, type Level, type Logger } from 'pino';
import { pinoHttp } from 'pino-http';
import { aborted, elapsedMs, markStart, operationOf, pathOf, projectOf } from './request-facts.js';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export const LOG_FORMATS = ['json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** Probes and scrapes come every few seconds; their lines are written only at `LOG_LEVEL=debug`. */
const QUIET_OPERATIONS = new Set(['healthz', 'readyz', 'metrics']);

/** Writes nothing: the app's logger when none is given (tests, and programs that embed the app). */
export const silentLogger: Logger = pino({ level: 'silent' });

/**
 * The process's logger. `destination` replaces standard output (tests capture lines with it); the pretty
 * format needs pino-pretty, a development dependency, and says so when it is missing.
 */
export async function createLogger(settings: { level: LogLevel; format: LogFormat }, destination?: DestinationStream): Promise<Logger> {
  const options = { level: settings.level, timestamp: pino.stdTimeFunctions.isoTime };
  // Standard output is written synchronously, as console.log writes a pipe. Buffered, it is flushed in a loop at
  // exit that never ends once the reader has gone (EPIPE), so a server whose output was piped to `head` would
  // never stop.
  if (settings.format === 'json') return pino(options, destination ?? pino.destination({ dest: 1, sync: true }));
  let pretty: typeof import('pino-pretty').PinoPretty;
  try {
    ({ PinoPretty: pretty } = await import('pino-pretty'));
  } catch {
    throw new Error('LOG_FORMAT=pretty needs the pino-pretty package, a development dependency; install it or use LOG_FORMAT=json');
  }
  // One line a request (`GET /v1/vouchers 200 list-vouchers proj_default 3.2 ms [v-…]`), in the terminal's
  // colours when it has them; anything else a line carries follows it as JSON.
  const stream = pretty({
    colorize: destination === undefined && process.stdout.isTTY,
    singleLine: true,
    translateTime: 'SYS:HH:MM:ss.l',
    messageFormat: '{msg}{if operation} {operation}{end}{if project} {project}{end}{if duration_ms} {duration_ms} ms{end}{if request_id} [{request_id}]{end}',
    ignore: 'pid,hostname,request_id,method,path,operation,project,status,duration_ms',
    sync: true,
    ...(destination && { destination }),
  });
  return pino(options, stream);
}

function requestLine(req: Request, res: Response) {
  const operation = operationOf(req, res);
  return {
    method: req.method,
    path: pathOf(req),
    // Always present, null when not known, so every line has the same fields to filter on.
    operation: operation ?? null,
    project: projectOf(res) ?? null,
    status: res.statusCode,
    duration_ms: Math.round(elapsedMs(res) * 100) / 100,
    ...(aborted(res) && { aborted: true }),
  };
}

/** Probes at debug whatever they answer (the orchestrator reports a failing one); a 5xx elsewhere is an error. */
function levelOf(req: Request, res: Response, error?: Error): Level {
  const operation = operationOf(req, res);
  if (operation !== undefined && QUIET_OPERATIONS.has(operation)) return 'debug';
  return error || res.statusCode >= 500 ? 'error' : 'info';
}

/** One line per request, written when the response is done (or the client has gone). */
export function requestLogging(logger: Logger): RequestHandler {
  // Below `error`, nothing a request writes would show: no per-request work at all (the tests' case).
  if (!logger.isLevelEnabled('error')) return (_req, _res, next) => next();
  const middleware = pinoHttp<Request, Response>({
    logger,
    // The ID `request-id.ts` gave the request, so a log line and an error body name the same request.
    genReqId: (_req, res) => String(res.locals.requestId),
    customAttributeKeys: { reqId: 'request_id' },
    quietReqLogger: true,
    quietResLogger: true,
    customLogLevel: levelOf,
    customSuccessObject: requestLine,
    customErrorObject: requestLine,
    customSuccessMessage: (req, res) => `${req.method} ${pathOf(req)} ${res.statusCode}`,
    customErrorMessage: (req, res) => `${req.method} ${pathOf(req)} ${res.statusCode}`,
  });
  return (req, res, next) => {
    markStart(res);
    middleware(req, res, next);
  };
}
