/**
 * The transactional outbox: a Store that, in the unit of work that records an event of a kind an active
 * webhook of the project subscribes to, writes one delivery row per such webhook (`webhook_deliveries`,
 * PENDING, due at once), holding the payload body built from the objects as they stand at that moment in the
 * unit of work (payloads.ts), including objects the same unit of work deleted. The rows commit or roll back
 * with the event: nothing is lost between the two, and a unit of work that fails delivers nothing. A delivery
 * is written leased to this instance's worker (delivery.ts) when the worker has room for it, and handed to it
 * once the unit of work has committed, with no claim; one written without a lease waits for a claim, by this
 * instance or any other sharing the store.
 */
import type { components } from '../../generated/openapi.js';
import type { Clock } from '../domain/clock.js';
import type { EventSource } from '../domain/context.js';
import type { EventRecord } from '../domain/events.js';
import { newId } from '../domain/ids.js';
import type { CardTransaction } from '../domain/loyalty/types.js';
import { subscribesTo, webhookKindOf, type Webhook, type WebhookEventType } from '../domain/management/webhooks.js';
import type { DomainStore, DomainUnitOfWork, Tables } from '../domain/schema.js';
import { eq } from '../store/conditions.js';
import { lazyUnitOfWork, PassThroughTable, withTransaction, type Row, type Table } from '../store/store.js';
import { presentEvent, type EventScope, type PresentedEvent, type WebhookPayload } from './payloads.js';
import { FRESH } from '../store/fresh.js';

type WebhookEnvelope = components['schemas']['WebhookEventEnvelope'];

/** An event that webhooks will deliver, under the kind it is delivered as, with its payload data. */
export interface DeliverableEvent {
  event: Omit<EventRecord, 'type'> & { type: WebhookEventType };
  presented: PresentedEvent;
}

/** A delivery a unit of work wrote: what its first attempt needs, and whether the worker's lease was written with it. */
export interface WrittenDelivery {
  id: string;
  webhookId: string;
  eventId: string;
  url: string;
  secret: string;
  body: string;
  leased: boolean;
}

/** The delivery worker (delivery.ts) as the outbox tells it of what units of work wrote. */
export interface DeliveryWorker {
  /**
   * The lease to write with a new delivery of the project when the worker has room for it (it then takes the
   * delivery in at commit, with no claim); undefined when it has none (the delivery waits, unleased, for a claim).
   */
  leaseAtWrite?(projectId: string): { leased_by: string; lease_until: number } | undefined;
  /** After a unit of work committed: the deliveries it wrote (never none). */
  committed(projectId: string, written: WrittenDelivery[]): void;
  /** A unit of work that was given `leases` failed, so none of what it wrote exists. */
  abandoned?(projectId: string, leases: number): void;
}

export function withOutbox(store: DomainStore, worker: DeliveryWorker): DomainStore {
  const notingUnitOfWork = lazyUnitOfWork(store.schema, (noting: Noting, name) => {
    const table = noting.uow[name] as Table<Row>;
    return INSERTS_NOTED.has(name) ? new NotingTable(table, name, noting) : new DeletionNotingTable(table, name, noting);
  });
  return withTransaction(store, async (run, projectId, work) => {
    // A store may run the work more than once (a retry after a conflict), each run with a Noting of its own;
    // only the last run's writes stand, so the leases of the runs before it are given back too.
    const runs: Noting[] = [];
    const leasesOf = (notings: Noting[]) => notings.reduce((sum, noting) => sum + noting.leases, 0);
    let result: Awaited<ReturnType<typeof work>>;
    try {
      result = await run(projectId, (uow) => {
        const noting = new Noting(projectId, uow, worker);
        runs.push(noting);
        return work(notingUnitOfWork(noting));
      });
    } catch (error) {
      if (leasesOf(runs) > 0) worker.abandoned?.(projectId, leasesOf(runs));
      throw error;
    }
    const last = runs.at(-1);
    if (leasesOf(runs.slice(0, -1)) > 0) worker.abandoned?.(projectId, leasesOf(runs.slice(0, -1)));
    if (last !== undefined && last.written.length > 0) worker.committed(projectId, last.written);
    return result;
  });
}

/**
 * What the outbox keeps of one unit of work: the rows it deleted and the card transactions it recorded (which
 * payloads may name), the events it recorded, the project's active webhooks, and how many deliveries it wrote.
 * Most units of work record no event and delete nothing, so the two maps are made at their first use.
 */
class Noting {
  readonly written: WrittenDelivery[] = [];
  /** Deliveries written leased to the worker (leaseAtWrite). */
  leases = 0;
  private deleted?: Map<string, Row>;
  private transactions?: Map<string, CardTransaction>;
  private readonly recorded: EventRecord[] = [];
  /** The project's active webhooks, read once per unit of work and only if it records an event. */
  private active?: Promise<Webhook[]>;

  constructor(
    private readonly projectId: string,
    readonly uow: DomainUnitOfWork,
    private readonly worker: DeliveryWorker,
  ) {}

  wasDeleted(table: string, id: string, row: Row): void {
    (this.deleted ??= new Map()).set(`${table}:${id}`, row);
  }

  transactionRecorded(transaction: CardTransaction): void {
    (this.transactions ??= new Map()).set(transaction.voucher_id, transaction);
  }

  private scope(event: EventRecord): EventScope {
    const { uow } = this;
    return {
      // The event's own moment, so nothing presented depends on when the presenting ran.
      ctx: { uow, clock: fixedClock(event.created_at) },
      find: async (table, id) => ((await (uow[table] as Table<Row>).get(id)) ?? this.deleted?.get(`${table}:${id}`)) as Tables[typeof table] | undefined,
      lastTransaction: (voucherId) => this.transactions?.get(voucherId),
      recorded: this.recorded,
    };
  }

  async eventRecorded(event: EventRecord): Promise<void> {
    this.recorded.push(event);
    const type = webhookKindOf(event.type);
    if (type === undefined) return;
    const { uow, projectId } = this;
    this.active ??= uow.webhooks.query({ where: eq('active', true) }).then(({ rows }) => rows);
    const targets = (await this.active).filter((webhook) => subscribesTo(webhook, type));
    if (targets.length === 0) return;
    const deliverable = { event: { ...FRESH, ...event, type }, presented: undefined as unknown as PresentedEvent };
    try {
      deliverable.presented = await presentEvent(this.scope(event), type, event);
    } catch (error) {
      // A payload that cannot be built must not fail the call that caused the event; it is reported instead.
      console.error(`webhook payload of event ${event.id} (${event.type}) could not be built, so it is not delivered: ${(error as Error).stack ?? String(error)}`);
      return;
    }
    for (const webhook of targets) {
      const id = newId('whd');
      const lease = this.worker.leaseAtWrite?.(projectId);
      if (lease) this.leases++;
      const body = JSON.stringify(payload(id, projectId, event.created_at, webhook, deliverable));
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
        body,
        due_ms: 0,
        leased_by: lease?.leased_by ?? null,
        lease_until: lease?.lease_until ?? null,
      });
      this.written.push({ id, webhookId: webhook.id, eventId: event.id, url: webhook.target_url, secret: webhook.secret, body, leased: lease !== undefined });
    }
  }
}

/** The tables whose inserts the outbox reads: events, and the card transactions their payloads may name. */
const INSERTS_NOTED: ReadonlySet<string> = new Set(['events', 'loyalty_transactions']);

/**
 * Every table of a unit of work, watched for the rows it deletes (a payload may name an object the same unit of
 * work deleted). Its inserts and updates pass straight through: an async step of its own on every insert made 6
 * of a redemption's 258 promises (async_hooks count), for tables whose inserts it never reads.
 */
class DeletionNotingTable extends PassThroughTable<Row> {
  constructor(
    inner: Table<Row>,
    protected readonly name: string,
    protected readonly noting: Noting,
  ) {
    super(inner);
  }

  override async delete(id: string): Promise<boolean> {
    const before = await this.inner.get(id);
    const done = await this.inner.delete(id);
    if (done && before) this.noting.wasDeleted(this.name, id, before);
    return done;
  }
}

/** A table whose inserts the outbox reads too (INSERTS_NOTED): the events it records and the card transactions. */
class NotingTable extends DeletionNotingTable {
  override async insert(row: Row): Promise<Row> {
    const stored = await this.inner.insert(row);
    if (this.name === 'events') await this.noting.eventRecorded(stored as unknown as EventRecord);
    if (this.name === 'loyalty_transactions') this.noting.transactionRecorded(stored as unknown as CardTransaction);
    return stored;
  }
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
  return { ...FRESH, ...envelope, type: event.type, data: presented.data } as WebhookPayload;
}

/** The event log's source in the public API's terms: what the service did by itself is `INTERNAL` there. */
function eventSource(source: EventSource): WebhookEnvelope['event']['event_source'] {
  const { channel, ...rest } = source;
  return { channel: channel === 'AUTOMATION' ? 'INTERNAL' : channel, ...rest };
}

function fixedClock(at: string): Clock {
  return { now: () => new Date(at) };
}
