/**
 * The outbox: a Store that notes every event a unit of work records and, once the unit of work has
 * committed, hands on the ones webhooks will deliver. Events of a unit of work that fails are never handed
 * on, since the failure undid them. While noting an event of a kind an active webhook of the project
 * subscribes to, the outbox builds its payload data (server/webhooks/payloads.ts) from the objects as they
 * stand at that moment in the unit of work, including objects the same unit of work deleted.
 */
import type { Clock } from '../domain/clock.js';
import type { EventRecord } from '../domain/events.js';
import type { CardTransaction } from '../domain/loyalty/types.js';
import { isWebhookEventType, subscribedKind, type WebhookEventType } from '../domain/management/webhooks.js';
import type { DomainStore, DomainUnitOfWork, Tables } from '../domain/schema.js';
import { eq } from '../store/conditions.js';
import { lazyUnitOfWork, overriding, withTransaction, type Row, type Table } from '../store/store.js';
import { presentEvent, type EventScope, type PresentedEvent } from './payloads.js';

/** An event that webhooks will deliver, with its payload data. */
export interface DeliverableEvent {
  event: EventRecord & { type: WebhookEventType };
  presented: PresentedEvent;
}

export type CommittedEvents = (projectId: string, events: DeliverableEvent[]) => void;

type Wrap = (name: string, table: Table<Row>) => Table<Row>;
type NotingUnitOfWork = (state: { uow: DomainUnitOfWork; wrap: Wrap }) => DomainUnitOfWork;

export function withOutbox(store: DomainStore, committed: CommittedEvents): DomainStore {
  const notingUnitOfWork: NotingUnitOfWork = lazyUnitOfWork(store.schema, ({ uow, wrap }: { uow: DomainUnitOfWork; wrap: Wrap }, name) => wrap(name, uow[name] as Table<Row>));
  return withTransaction(store, async (projectId, work) => {
    const outbox: DeliverableEvent[] = [];
    const result = await store.transaction(projectId, (uow) => work(noting(uow, outbox, notingUnitOfWork)));
    if (outbox.length > 0) committed(projectId, outbox);
    return result;
  });
}

function noting(uow: DomainUnitOfWork, outbox: DeliverableEvent[], notingUnitOfWork: NotingUnitOfWork): DomainUnitOfWork {
  const deleted = new Map<string, Row>();
  const transactions = new Map<string, CardTransaction>();
  const recorded: EventRecord[] = [];
  // Which kinds the project's active webhooks take, read once per unit of work and only if it records an event.
  let subscribed: Promise<Set<string>> | undefined;
  const wanted = async (type: string) => {
    subscribed ??= uow.webhooks.query({ where: eq('active', true) }).then(({ rows }) => new Set(rows.flatMap((webhook) => webhook.events.map(subscribedKind))));
    return (await subscribed).has(type);
  };
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
    if (!isWebhookEventType(type) || !(await wanted(type))) return;
    try {
      const deliverable = { ...event, type };
      outbox.push({ event: deliverable, presented: await presentEvent(scope(event), deliverable) });
    } catch (error) {
      // A payload that cannot be built must not fail the call that caused the event; it is reported instead.
      console.error(`webhook payload of event ${event.id} (${event.type}) could not be built, so it is not delivered: ${(error as Error).stack ?? String(error)}`);
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

function fixedClock(at: string): Clock {
  return { now: () => new Date(at) };
}
