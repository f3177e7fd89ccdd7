/**
 * The outbox: a Store that notes every event a unit of work records and, once the unit of work has
 * committed, hands them on (to webhook delivery). Events of a unit of work that fails are never handed on,
 * since the failure undid them. While noting an event, the outbox puts in its data the full objects the
 * event names (by their IDs), as they stand at that moment, including objects the same unit of work deleted.
 */
import type { EventRecord } from '../domain/events.js';
import { lazyUnitOfWork, type Row, type Store, type Table, type UnitOfWork } from '../store/store.js';
import type { Tables } from '../store/tables.js';

/** The table behind each key that event data uses to name an object. */
const OBJECT_TABLES: Readonly<Record<string, keyof Tables>> = {
  voucher: 'vouchers',
  campaign: 'campaigns',
  customer: 'customers',
  redemption: 'redemptions',
  publication: 'publications',
  order: 'orders',
  promotion_tier: 'promotion_tiers',
  validation_rule: 'validation_rules',
  assignment: 'validation_rule_assignments',
};

export type CommittedEvents = (projectId: string, events: EventRecord[]) => void;

export function withOutbox(store: Store, committed: CommittedEvents): Store {
  return {
    createProject: (projectId) => store.createProject(projectId),
    hasProject: (projectId) => store.hasProject(projectId),
    dropProject: (projectId) => store.dropProject(projectId),
    projectIds: () => store.projectIds(),
    async transaction(projectId, work) {
      const outbox: EventRecord[] = [];
      const result = await store.transaction(projectId, (uow) => work(noting(uow, outbox)));
      if (outbox.length > 0) committed(projectId, outbox);
      return result;
    },
  };
}

function noting(uow: UnitOfWork, outbox: EventRecord[]): UnitOfWork {
  const deleted = new Map<string, Row>();
  const full = async (data: Record<string, unknown>): Promise<Record<string, unknown>> => {
    const result = { ...data };
    for (const [key, value] of Object.entries(data)) {
      const table = OBJECT_TABLES[key];
      const id = (value as { id?: unknown } | null)?.id;
      if (!table || typeof id !== 'string') continue;
      const object = (await (uow[table] as Table<Row>).get(id)) ?? deleted.get(`${table}:${id}`);
      if (object) result[key] = { ...(value as object), ...object };
    }
    return result;
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
      if (name === 'events') {
        const event = stored as unknown as EventRecord;
        outbox.push({ ...event, data: await full(event.data) });
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

const notingUnitOfWork = lazyUnitOfWork<{ uow: UnitOfWork; wrap: (name: string, table: Table<Row>) => Table<Row> }>(({ uow, wrap }, name) =>
  wrap(name, uow[name] as Table<Row>),
);
