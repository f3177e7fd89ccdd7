/**
 * Prometheus metrics at `/metrics` (prom-client): requests by operation and status, their latency by
 * operation, webhook deliveries by outcome and the deliveries held, and the process's own (CPU, memory,
 * event-loop lag, garbage collection, descriptors).
 *
 * The server's metrics live in a registry of each app, so the many apps a test process makes never count into
 * each other; the process metrics are the process's, so they live in one registry that every app's `/metrics`
 * shows, made at the first scrape. No label names a project: projects come and go with the management API,
 * and each would be a series of its own. `/metrics` is open unless a token is set (`METRICS_TOKEN`); it tells
 * how busy each operation is, never what any project holds.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { DeliveryOutcome } from '../webhooks/delivery.js';
import { sendError } from './errors.js';
import type { FailedAuthenticationLimit } from './rate-limit.js';
import { aborted, elapsedMs, markStart, operationOf } from './request-facts.js';

/** The label of requests refused before their operation was known (authentication, rate limits, unknown paths). */
export const UNKNOWN_OPERATION = 'unknown';

/** From a millisecond (a cached read) to ten seconds (an export page under load). */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

let processRegistry: Registry | undefined;

function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

export class ServerMetrics {
  readonly registry = new Registry();
  private readonly requests = new Counter({
    name: 'http_requests_total',
    help: 'Requests answered, by operation (the contract\'s operationId) and status code (`aborted` when the client left first).',
    labelNames: ['operation', 'status'] as const,
    registers: [this.registry],
  });
  private readonly latency = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from a request\'s arrival to the end of its response, by operation.',
    labelNames: ['operation'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  private readonly deliveries = new Counter({
    name: 'webhook_deliveries_total',
    help: 'Webhook deliveries ended, by outcome: delivered; failed (no attempt left); stopped (server stopped); discarded (webhook or project deleted).',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  private readonly queueDepth: Gauge;

  /** `held` reads how many webhook deliveries wait or are under way, at each scrape. */
  constructor(held: () => number) {
    this.queueDepth = new Gauge({
      name: 'webhook_queue_depth',
      help: 'Webhook deliveries held in memory: waiting for a connection slot or a retry, or under way.',
      registers: [this.registry],
      collect() {
        this.set(held());
      },
    });
  }

  /** Counts and times every request, when its response is done or its client has gone. */
  readonly observe: RequestHandler = (req, res, next) => {
    markStart(res);
    // A response closes once: `on` counts it once without the wrapper `once` makes per request.
    res.on('close', () => this.requestDone(req, res));
    next();
  };

  private requestDone(req: Request, res: Response): void {
    const operation = operationOf(req, res) ?? UNKNOWN_OPERATION;
    this.requests.inc({ operation, status: aborted(res) ? 'aborted' : String(res.statusCode) });
    this.latency.observe({ operation }, elapsedMs(res) / 1000);
  }

  readonly deliverySettled = (outcome: DeliveryOutcome, count: number): void => {
    this.deliveries.inc({ outcome }, count);
  };

  /**
   * The `/metrics` endpoint. With a token, a request must carry it as `Authorization: Bearer <token>`, and
   * wrong tokens count as failed authentications of the client's address; without one, a scraper behind the
   * same address as clients with bad keys is never turned away.
   */
  endpoint(token: string | undefined, failures: FailedAuthenticationLimit): RequestHandler[] {
    const expected = token === undefined ? undefined : digest(token);
    const scrape: RequestHandler = async (req, res) => {
      if (expected) {
        const given = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
        if (!given || !timingSafeEqual(digest(given), expected)) {
          failures.failed(req, res, () => sendError(res, 401, 'unauthorized', 'Unauthorized', 'The metrics need the bearer token set in METRICS_TOKEN'));
          return;
        }
      }
      const [own, process] = await Promise.all([this.registry.metrics(), processMetrics().metrics()]);
      res.type(this.registry.contentType).set('Cache-Control', 'no-store').send(`${own}\n${process}`);
    };
    return expected ? [failures.gate, scrape] : [scrape];
  }
}

/** Equal-length values for a constant-time comparison, whatever the lengths given. */
function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}
