/**
 * The transactional outbox: a Store that, in the unit of work that records an event of a kind an active
 * webhook of the project subscribes to, writes one delivery row per such webhook (`webhook_deliveries`,
 * PENDING, due at once), holding the payload body built from the objects as they stand at that moment in the
 * unit of work (payloads.ts), including objects the same unit of work deleted. The rows commit or roll back
 * with the event: nothing is lost between the two, and a unit of work that fails delivers nothing. Once the
 * unit of work has committed, the outbox nudges the delivery worker (delivery.ts), which claims due rows from
 * the store; any instance sharing the store may claim them.
 */
import type { components } from '../../generated/openapi.js';
import type { Clock } from '../domain/clock.js';
import type { EventSource } from '../domain/context.js';
import type { EventRecord } from '../domain/events.js';
import { newId } from '../domain/ids.js';
import type { CardTransaction } from '../domain/loyalty/types.js';
import { isWebhookEventType, subscribesTo, type Webhook, type WebhookEventType } from '../domain/management/webhooks.js';
import type { DomainStore, DomainUnitOfWork, Tables } from '../domain/schema.js';
import { eq } from '../store/conditions.js';
import { lazyUnitOfWork, overriding, withTransaction, type Row, type Table } from '../store/store.js';
import { presentEvent, type EventScope, type PresentedEvent, type WebhookPayload } from './payloads.js';

type WebhookEnvelope = components['schemas']['WebhookEventEnvelope'];

/** An event that webhooks will deliver, with its payload data. */
export interface DeliverableEvent {
  event: EventRecord & { type: WebhookEventType };
  presented: PresentedEvent;
}

/** Told, after a unit of work committed, how many deliveries it wrote (never 0). */
export type CommittedDeliveries = (projectId: string, deliveries: number) => void;

type Wrap = (name: string, table: Table<Row>) => Table<Row>;
type NotingUnitOfWork = (state: { uow: DomainUnitOfWork; wrap: Wrap }) => DomainUnitOfWork;

export function withOutbox(store: DomainStore, committed: CommittedDeliveries): DomainStore {
  const notingUnitOfWork: NotingUnitOfWork = lazyUnitOfWork(store.schema, ({ uow, wrap }: { uow: DomainUnitOfWork; wrap: Wrap }, name) => wrap(name, uow[name] as Table<Row>));
  return withTransaction(store, async (projectId, work) => {
    const written = { deliveries: 0 };
    const result = await store.transaction(projectId, (uow) => work(noting(projectId, uow, written, notingUnitOfWork)));
    if (written.deliveries > 0) committed(projectId, written.deliveries);
    return result;
  });
}

function noting(projectId: string, uow: DomainUnitOfWork, written: { deliveries: number }, notingUnitOfWork: NotingUnitOfWork): DomainUnitOfWork {
  const deleted = new Map<string, Row>();
  const transactions = new Map<string, CardTransaction>();
  const recorded: EventRecord[] = [];
  // The project's active webhooks, read once per unit of work and only if it records an event.
  let active: Promise<Webhook[]> | undefined;
  const scope = (event: EventRecord): EventScope => ({
    // The event's own moment, so nothing presented depends on when the presenting ran.
    ctx: { uow, clock: fixedClock(event.created_at) },
    find: async (table, id) => ((await (uow[table] as Table<Row>).get(id)) ?? deleted.get(`${table}:${id}`)) as Tables[typeof table] | undefined,
    lastTransaction: (voucherId) => transactions.get(voucherId),
    recorded,
  });
  const note = async (event: EventRecord) => {
    recorded.push(event);
    const { type } = event;
    if (!isWebhookEventType(type)) return;
    active ??= uow.webhooks.query({ where: eq('active', true) }).then(({ rows }) => rows);
    const targets = (await active).filter((webhook) => subscribesTo(webhook, type));
    if (targets.length === 0) return;
    const deliverable = { event: { ...event, type }, presented: undefined as unknown as PresentedEvent };
    try {
      deliverable.presented = await presentEvent(scope(event), deliverable.event);
    } catch (error) {
      // A payload that cannot be built must not fail the call that caused the event; it is reported instead.
      console.error(`webhook payload of event ${event.id} (${event.type}) could not be built, so it is not delivered: ${(error as Error).stack ?? String(error)}`);
      return;
    }
    for (const webhook of targets) {
      const id = newId('whd');
      await uow.webhook_deliveries.insert({
        id,
        webhook_id: webhook.id,
        event_id: event.id,
        event_type: type,
        status: 'PENDING',
        attempts: [],
        failure_reason: null,
        next_attempt_at: event.created_at,
        created_at: event.created_at,
        updated_at: null,
        object: 'webhook_delivery',
        body: JSON.stringify(payload(id, projectId, event.created_at, webhook, deliverable)),
        due_ms: 0,
        leased_by: null,
        lease_until: null,
      });
      written.deliveries++;
    }
  };
  const wrap: Wrap = (name, table) =>
    overriding(table, {
      insert: async (row) => {
        const stored = await table.insert(row);
        if (name === 'events') await note(stored as unknown as EventRecord);
        if (name === 'loyalty_transactions') {
          const transaction = stored as unknown as CardTransaction;
          transactions.set(transaction.voucher_id, transaction);
        }
        return stored;
      },
      delete: async (id) => {
        const before = await table.get(id);
        const done = await table.delete(id);
        if (done && before) deleted.set(`${name}:${id}`, before);
        return done;
      },
    });
  return notingUnitOfWork({ uow, wrap });
}

/**
 * The body of one delivery: the envelope (this delivery, the webhook it goes to, the event) around the
 * event's data. The envelope is typed by the contract here; the data by the kind's builder (payloads.ts).
 */
export function payload(id: string, projectId: string, now: string, webhook: Webhook, { event, presented }: DeliverableEvent): WebhookPayload {
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

function fixedClock(at: string): Clock {
  return { now: () => new Date(at) };
}
