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
import { lazyUnitOfWork, type Row, type Store, type Table, type UnitOfWork } from '../store/store.js';
import type { Tables } from '../store/tables.js';
import { presentEvent, type EventScope, type PresentedEvent } from './payloads.js';

/** An event that webhooks will deliver, with its payload data. */
export interface DeliverableEvent {
  event: EventRecord & { type: WebhookEventType };
  presented: PresentedEvent;
}

export type CommittedEvents = (projectId: string, events: DeliverableEvent[]) => void;

export function withOutbox(store: Store, committed: CommittedEvents): Store {
  return {
    createProject: (projectId) => store.createProject(projectId),
    hasProject: (projectId) => store.hasProject(projectId),
    dropProject: (projectId) => store.dropProject(projectId),
    projectIds: () => store.projectIds(),
    async transaction(projectId, work) {
      const outbox: DeliverableEvent[] = [];
      const result = await store.transaction(projectId, (uow) => work(noting(uow, outbox)));
      if (outbox.length > 0) committed(projectId, outbox);
      return result;
    },
  };
}

function noting(uow: UnitOfWork, outbox: DeliverableEvent[]): UnitOfWork {
  const deleted = new Map<string, Row>();
  const transactions = new Map<string, CardTransaction>();
  const recorded: EventRecord[] = [];
  // Which kinds the project's active webhooks take, read once per unit of work and only if it records an event.
  let subscribed: Promise<Set<string>> | undefined;
  const wanted = async (type: string) => {
    subscribed ??= uow.webhooks.query({ where: (webhook) => webhook.active }).then(({ rows }) => new Set(rows.flatMap((webhook) => webhook.events.map(subscribedKind))));
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
  const wrap = (name: string, table: Table<Row>): Table<Row> => ({
    get: (id) => table.get(id),
    getBy: (field, value) => table.getBy(field, value),
    findBy: (field, value) => table.findBy(field, value),
    countBy: (field, value) => table.countBy(field, value),
    query: (query) => table.query(query),
    update: (row) => table.update(row),
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

const notingUnitOfWork = lazyUnitOfWork<{ uow: UnitOfWork; wrap: (name: string, table: Table<Row>) => Table<Row> }>(({ uow, wrap }, name) =>
  wrap(name, uow[name] as Table<Row>),
);
