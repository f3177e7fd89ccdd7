/**
 * Webhook delivery. Each committed event of a kind a webhook subscribes to becomes one delivery per active
 * subscribed webhook, recorded in the project's `webhook_deliveries`. Deliveries run as background jobs,
 * never inside the request that caused the event: a signed POST, retried with exponential backoff until a
 * 2xx answer or the last allowed attempt. On shutdown, waiting retries are cut short: each pending delivery
 * gets one last attempt, and what still fails is marked FAILED and logged.
 */
import { createHmac } from 'node:crypto';
import type { components } from '../../generated/openapi.js';
import type { Clock } from '../domain/clock.js';
import type { EventSource } from '../domain/context.js';
import { newId } from '../domain/ids.js';
import { subscribesTo, type Webhook, type WebhookDelivery } from '../domain/management/webhooks.js';
import type { Jobs } from '../jobs.js';
import { UnknownProject, type Store } from '../store/store.js';
import type { DeliverableEvent } from './outbox.js';
import type { WebhookPayload } from './payloads.js';

type WebhookEnvelope = components['schemas']['WebhookEventEnvelope'];

export interface DeliveryPolicy {
  /** Attempts in all, the first included. */
  maxAttempts: number;
  /** Wait before the first retry; each later retry waits twice as long as the one before. */
  backoffMs: number;
  /** How long a receiver has to answer an attempt. */
  timeoutMs: number;
}

export const DEFAULT_DELIVERY_POLICY: DeliveryPolicy = { maxAttempts: 5, backoffMs: 1000, timeoutMs: 10_000 };

/** The `X-Webhook-Signature` value of a body: `sha256=` and the hex HMAC-SHA256 keyed with the webhook's secret. */
export function signBody(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

interface Pending {
  deliveryId: string;
  webhookId: string;
  eventId: string;
  url: string;
  secret: string;
  body: string;
}

type Attempt = WebhookDelivery['attempts'][number];

/**
 * The body of one delivery: the envelope (this delivery, the webhook it goes to, the event) around the
 * event's data. The envelope is typed by the contract here; the data by the kind's builder (payloads.ts).
 */
function payload(id: string, projectId: string, now: string, webhook: Webhook, { event, presented }: DeliverableEvent): WebhookPayload {
  const envelope: Omit<WebhookEnvelope, 'type'> = {
    id,
    project_id: projectId,
    created_at: now,
    source: { id: webhook.id, object: 'webhook', target_url: webhook.target_url },
    event: {
      id: event.id,
      type: event.type,
      created_at: event.created_at,
      entity_id: presented.entityId,
      group_id: event.group_id,
      event_source: eventSource(event.event_source),
    },
  };
  // The kind and its data were paired by the kind's builder, which the compiler cannot see across the union.
  return { ...envelope, type: event.type, data: presented.data } as WebhookPayload;
}

/** The event log's source in the public API's terms: what the service did by itself is `INTERNAL` there. */
function eventSource(source: EventSource): WebhookEnvelope['event']['event_source'] {
  const { channel, ...rest } = source;
  return { channel: channel === 'AUTOMATION' ? 'INTERNAL' : channel, ...rest };
}

export class WebhookDeliveries {
  private stopping = false;
  private readonly sleepers = new Set<() => void>();

  constructor(
    private readonly store: Store,
    private readonly jobs: Jobs,
    private readonly clock: Clock,
    private readonly policy: DeliveryPolicy,
  ) {
    jobs.onShutdown(() => this.stop());
  }

  /** Called with the deliverable events of each committed unit of work; returns at once. */
  readonly committed = (projectId: string, events: DeliverableEvent[]): void => {
    if (events.length === 0) return;
    this.jobs.start('webhook fan-out', () => this.fanOut(projectId, events));
  };

  private async fanOut(projectId: string, events: DeliverableEvent[]): Promise<void> {
    let pending: Pending[];
    try {
      pending = await this.store.transaction(projectId, async (uow) => {
        const webhooks = (await uow.webhooks.query({ where: (webhook) => webhook.active })).rows;
        const made: Pending[] = [];
        const now = this.clock.now().toISOString();
        for (const deliverable of events) {
          const { event } = deliverable;
          for (const webhook of webhooks.filter((candidate) => subscribesTo(candidate, event.type))) {
            const id = newId('whd');
            const body = JSON.stringify(payload(id, projectId, now, webhook, deliverable));
            const delivery = await uow.webhook_deliveries.insert({
              id,
              webhook_id: webhook.id,
              event_id: event.id,
              event_type: event.type,
              status: 'PENDING',
              attempts: [],
              next_attempt_at: now,
              created_at: now,
              updated_at: null,
              object: 'webhook_delivery',
            });
            made.push({ deliveryId: delivery.id, webhookId: webhook.id, eventId: event.id, url: webhook.target_url, secret: webhook.secret, body });
          }
        }
        return made;
      });
    } catch (error) {
      if (error instanceof UnknownProject) return;
      throw error;
    }
    for (const item of pending) this.jobs.start(`webhook delivery ${item.deliveryId}`, () => this.deliver(projectId, item));
  }

  private async deliver(projectId: string, item: Pending): Promise<void> {
    for (let number = 1; ; number++) {
      const attempt = await this.send(item, number);
      const delivered = attempt.error === null;
      const last = delivered || number >= this.policy.maxAttempts || this.stopping;
      const wait = this.policy.backoffMs * 2 ** (number - 1);
      const status = delivered ? 'DELIVERED' : last ? 'FAILED' : 'PENDING';
      const nextAt = last ? null : new Date(this.clock.now().getTime() + wait).toISOString();
      const kept = await this.record(projectId, item.deliveryId, attempt, status, nextAt);
      if (!kept) {
        // Deleting a webhook (or its project) drops its history and pending retries, as the contract says; say so.
        if (!delivered) console.error(`webhook delivery ${item.deliveryId} DROPPED: event ${item.eventId}; its webhook or project was deleted`);
        return;
      }
      if (delivered) return;
      if (last) {
        const why = this.stopping && number < this.policy.maxAttempts ? 'the server stopped' : 'no attempt left';
        console.error(
          `webhook delivery ${item.deliveryId} FAILED (${why}): event ${item.eventId} to ${item.url} after ${number} attempt(s), last error: ${attempt.error}`,
        );
        return;
      }
      await this.pause(wait);
    }
  }

  private async send(item: Pending, number: number): Promise<Attempt> {
    const startedAt = this.clock.now().toISOString();
    const started = performance.now();
    const took = () => Math.round(performance.now() - started);
    try {
      const response = await fetch(item.url, {
        method: 'POST',
        redirect: 'manual',
        signal: AbortSignal.timeout(this.policy.timeoutMs),
        headers: {
          'Content-Type': 'application/json',
          'User-Agent': 'promo-loyalty-webhooks/1',
          'X-Webhook-Signature': signBody(item.secret, item.body),
          'X-Webhook-Id': item.webhookId,
          'X-Webhook-Attempt': String(number),
        },
        body: item.body,
      });
      await response.body?.cancel().catch(() => undefined);
      const ok = response.status >= 200 && response.status < 300;
      return { number, started_at: startedAt, duration_ms: took(), status_code: response.status, error: ok ? null : `answered ${response.status}` };
    } catch (error) {
      const timedOut = error instanceof DOMException && error.name === 'TimeoutError';
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      const reason = timedOut ? `no answer within ${this.policy.timeoutMs} ms` : (cause?.code ?? cause?.message ?? String(error));
      return { number, started_at: startedAt, duration_ms: took(), status_code: null, error: reason };
    }
  }

  /** Adds the attempt to the delivery; false when the delivery (its webhook, or its project) is gone. */
  private async record(projectId: string, deliveryId: string, attempt: Attempt, status: WebhookDelivery['status'], nextAt: string | null): Promise<boolean> {
    try {
      return await this.store.transaction(projectId, async (uow) => {
        const delivery = await uow.webhook_deliveries.get(deliveryId);
        if (!delivery) return false;
        await uow.webhook_deliveries.update({
          ...delivery,
          status,
          attempts: [...delivery.attempts, attempt],
          next_attempt_at: nextAt,
          updated_at: this.clock.now().toISOString(),
        });
        return true;
      });
    } catch (error) {
      if (error instanceof UnknownProject) return false;
      throw error;
    }
  }

  private pause(milliseconds: number): Promise<void> {
    if (this.stopping) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.sleepers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, milliseconds);
      this.sleepers.add(wake);
    });
  }

  private stop(): void {
    this.stopping = true;
    for (const wake of [...this.sleepers]) wake();
  }
}
