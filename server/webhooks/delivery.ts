/**
 * Webhook delivery. The outbox (outbox.ts) writes each delivery as a PENDING row, with its body, in the unit
 * of work of its event. Every server instance drains the rows of every project: it claims due rows from the
 * store (Store.claim: a lease, so no two instances hold one delivery at once; a lease that lapses, its
 * instance having died, frees the row for another), every `pollMs` and whenever a unit of work of its own
 * wrote some. Deliveries run in the background, never inside the request that caused the event: a signed
 * POST, retried with exponential backoff until a 2xx answer or the last allowed attempt. The target URL and
 * secret are read from the webhook at each attempt; a deleted webhook takes its deliveries with it.
 *
 * Each attempt carries the delivery's ID, its event's ID and the attempt's number in headers: if an instance
 * dies after sending and before recording, the delivery's next holder sends that attempt again, and the
 * receiver can tell.
 *
 * Nothing a receiver does can cost the rest of the server more than a fixed amount. Attempts go through one
 * undici agent, and at most `connectionsPerTarget` run at once per target origin and `connections` in all; a
 * delivery waiting for its turn or for its retry is a small record in memory (its body, the webhook's address
 * and secret), holding no socket and no timer of its own: one timer serves every retry. The deliveries held
 * are bounded per project and in all; past a bound the oldest waiting are marked FAILED and logged. Every
 * attempt is bounded in time: connecting, then the whole answer.
 *
 * The target's host is resolved again for every new connection, in the agent's own lookup, and the connection
 * is refused unless every address is public: a name that resolved to a public address when the webhook was
 * saved cannot be pointed at a private network afterwards (DNS rebinding).
 *
 * On shutdown, with a store that outlives the process (`keepPendingOnStop`), the deliveries held go back to
 * the store still PENDING, their leases released, for the next start or another instance (attempts under way
 * finish first, within the deadline). With the memory store, which dies with the process, waiting retries
 * are cut short instead: each pending delivery gets one last attempt, within an overall deadline; what still
 * fails, or could not be attempted before the deadline, is marked FAILED and logged.
 */
import { createHmac } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { lookup as systemLookup } from 'node:dns/promises';
import type { LookupFunction } from 'node:net';
import { Agent } from 'undici';
import { hostname } from 'node:os';
import { isoNow, type Clock } from '../domain/clock.js';
import { randomBytes } from 'node:crypto';
import { isPublicAddress, literalAddress, refusedAddresses, type HostResolver } from '../domain/management/webhook-targets.js';
import type { Webhook, WebhookDelivery, WebhookDeliveryRow } from '../domain/management/webhooks.js';
import type { Jobs } from '../jobs.js';
import { pruneDeliveryLog } from './delivery-log.js';
import type { DeliveryWorker, WrittenDelivery } from './outbox.js';
import { and, compare, eq } from '../store/conditions.js';
import { UnknownProject } from '../store/store.js';
import type { DomainStore } from '../domain/schema.js';
import { FRESH } from '../store/fresh.js';

export interface DeliveryPolicy {
  /** Attempts in all, the first included. */
  maxAttempts: number;
  /** Wait before the first retry; each later retry waits twice as long as the one before. */
  backoffMs: number;
  /** How long a receiver has, once connected, to answer; an attempt never outlasts this and `connectTimeoutMs` together. */
  timeoutMs: number;
  /** How long a receiver has to accept the connection (the host's lookup included). */
  connectTimeoutMs: number;
  /** Attempts (so connections) at once to one target origin. */
  connectionsPerTarget: number;
  /** Attempts (so connections) at once in all. */
  connections: number;
  /**
   * Deliveries of one project this instance holds (waiting or under way); due ones past it stay PENDING in the
   * store, unleased, until the project's held ones make room.
   */
  queuePerProject: number;
  /** Deliveries of every project this instance holds; due ones past it stay PENDING in the store likewise. */
  queue: number;
  /** On shutdown, how long pending deliveries have in all for their last attempt (or, kept, to finish the attempt under way). */
  shutdownDeadlineMs: number;
  /** How often the store is asked for due deliveries (those of other instances, lapsed leases, retries released); 0 never. */
  pollMs: number;
  /**
   * How long a claimed delivery stays this instance's without being renewed. The leases of the deliveries held
   * are renewed every third of it (and at each attempt), so only an instance that stopped renewing (it died)
   * loses its deliveries to another, within this long.
   */
  leaseMs: number;
  /**
   * Settled (DELIVERED or FAILED) deliveries are kept for the delivery log this long after they were made,
   * and at most `keepSettledPerProject` of them per project (the newest); older ones are removed in the
   * background every `pruneEveryMs`. PENDING deliveries are never removed this way.
   */
  keepSettledMs: number;
  keepSettledPerProject: number;
  /** How often settled deliveries past the bounds above are removed; 0 never. */
  pruneEveryMs: number;
  /**
   * On shutdown, leave pending deliveries PENDING in the store (leases released) rather than give each a last
   * attempt and mark it FAILED: for a store that outlives the process. Off by default (the memory store).
   */
  keepPendingOnStop: boolean;
}

export const DEFAULT_DELIVERY_POLICY: DeliveryPolicy = {
  maxAttempts: 5,
  backoffMs: 1000,
  timeoutMs: 10_000,
  connectTimeoutMs: 5000,
  connectionsPerTarget: 16,
  connections: 64,
  queuePerProject: 1000,
  queue: 10_000,
  shutdownDeadlineMs: 10_000,
  pollMs: 1000,
  leaseMs: 30_000,
  keepSettledMs: 7 * 24 * 3600_000,
  keepSettledPerProject: 10_000,
  pruneEveryMs: 60_000,
  keepPendingOnStop: false,
};

/** Where deliveries may connect: public addresses only, unless private ones are allowed (local testing). */
export interface TargetPolicy {
  allowPrivateTargets: boolean;
  resolve: HostResolver;
}

/** The operating system's resolver (the one a plain connection would use), every address of the name. */
export const systemResolver: HostResolver = (hostname) => systemLookup(hostname, { all: true, verbatim: true });

/** The `X-Webhook-Signature` value: the time it was signed, and the hex HMAC-SHA256 of `<t>.<body>` keyed with the webhook's secret. */
export function signatureHeader(secret: string, body: string, unixSeconds: number): string {
  const signature = createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex');
  return `t=${unixSeconds},v1=${signature}`;
}

/** One text for every way of not getting an answer, so the delivery log cannot tell a closed port from a silent one. */
export const UNREACHABLE = 'the receiver could not be reached';
export const REFUSED_ADDRESS = 'the target resolves to an address webhooks may not reach';
export const STOPPED = 'server stopped';
export const EXHAUSTED = 'no attempt left';

/** How much of an answer's body is read (and ignored) so the connection can be used again. */
const ANSWER_BODY_LIMIT = 64 * 1024;
/** How long what a claim read of a delivery and its webhook is used without reading it again (see attempt). */
const FRESH_READ_MS = 1000;
/** Commits within this long of the first are served by one claim (see nudgeSoon). */
const CLAIM_GATHER_MS = 20;
/** Retries due within this long of each other are started by one timer tick. */
const TICK_MS = 20;
/** How many delivery IDs one log line names. */
const LOGGED_IDS = 20;

const TARGET_REFUSED = 'ERR_WEBHOOK_TARGET_REFUSED';

/** How a delivery ended: delivered, or FAILED for one of the reasons above, or dropped with its webhook or project. */
export type DeliveryOutcome = 'delivered' | 'failed' | 'stopped' | 'discarded';

const OUTCOME_OF_REASON: Record<string, DeliveryOutcome> = { [EXHAUSTED]: 'failed', [STOPPED]: 'stopped' };

/** What the server around the deliveries hears of them (metrics, the log); each hook is optional. */
export interface DeliveryHooks {
  /** `count` deliveries ended with this outcome. */
  settled?(outcome: DeliveryOutcome, count: number): void;
  /** A line for the operator: deliveries that failed, and faults of the delivery machinery itself. */
  log?(level: 'warn' | 'error', message: string, error?: unknown): void;
}

const consoleLog: NonNullable<DeliveryHooks['log']> = (_level, message, error) => {
  if (error === undefined) console.error(message);
  else console.error(message, error);
};

/** A delivery the server holds (under its lease): what it needs to make its next attempt, nothing more. */
interface Pending {
  projectId: string;
  deliveryId: string;
  webhookId: string;
  eventId: string;
  url: string;
  origin: string;
  secret: string;
  body: string;
  /** Attempts made so far. */
  made: number;
  /** `ready` waits for a connection slot, `waiting` for its retry time, `busy` is being attempted or recorded. */
  state: 'ready' | 'waiting' | 'busy';
  /** When a waiting delivery is due (ms since the epoch). */
  dueAt: number;
  /** When the delivery, its lease and its webhook's address and secret were last read from the store (ms since the epoch). */
  readAt: number;
}

type Attempt = WebhookDelivery['attempts'][number];

function first<V>(map: Map<string, V>): V | undefined {
  return map.values().next().value;
}

export class WebhookDeliveries implements DeliveryWorker {
  /** Every delivery held, oldest first (a Map keeps insertion order). */
  private readonly pending = new Map<string, Pending>();
  private readonly byProject = new Map<string, Map<string, Pending>>();
  /** Deliveries waiting for a connection slot, per target origin; origins in turn order. */
  private readonly ready = new Map<string, Map<string, Pending>>();
  private readonly waiting = new Map<string, Pending>();
  private readonly busyByOrigin = new Map<string, number>();
  private busy = 0;

  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;

  /**
   * FAILED deliveries to log, and those among them still to mark FAILED, by project, webhook, reason and detail:
   * written and logged in batches, so a flood of failures costs one write and one log line per batch.
   */
  private failing = new Map<string, FailedBatch>();
  private flushing = false;

  private stopping = false;
  private deadlineAt = Infinity;
  private deadlinePassed = false;
  private deadlineTimer: NodeJS.Timeout | undefined;
  private readonly abortAll = new AbortController();

  private agent: Agent | undefined;
  /** Settles the background job that stands for all delivery work, once nothing is held. */
  private drained: (() => void) | undefined;
  private readonly log: NonNullable<DeliveryHooks['log']>;

  /** Who this instance is, in the leases it takes. */
  readonly owner = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private pollTimer: NodeJS.Timeout | undefined;
  private polling = false;
  private pollAgain = false;
  /** Whether the last claim took all it had room for, so due deliveries may be waiting in the store. */
  private backlog = false;
  private renewTimer: NodeJS.Timeout | undefined;
  /** Leases given at write (leaseAtWrite) whose units of work have not ended yet, per project and in all. */
  private readonly atWrite = new Map<string, number>();
  private atWriteTotal = 0;
  private gatherTimer: NodeJS.Timeout | undefined;
  private pruneTimer: NodeJS.Timeout | undefined;
  /** Deliveries whose leases are being given back on shutdown. */
  private releasing = 0;

  constructor(
    private readonly store: DomainStore,
    private readonly jobs: Jobs,
    private readonly clock: Clock,
    private readonly policy: DeliveryPolicy,
    private readonly targets: TargetPolicy = { allowPrivateTargets: false, resolve: systemResolver },
    private readonly hooks: DeliveryHooks = {},
  ) {
    jobs.onShutdown(() => this.stop());
    this.log = hooks.log ?? consoleLog;
    // Every attempt under way listens for the shutdown's cut-off: at most `connections` at once, which is more
    // than the default of 10 listeners after which Node warns of a leak (MaxListenersExceededWarning).
    setMaxListeners(policy.connections + 1, this.abortAll.signal);
    this.schedulePoll();
    this.renewTimer = setInterval(() => this.pending.size > 0 && this.jobs.start('webhook lease renewal', () => this.renewLeases()), Math.max(1, Math.floor(policy.leaseMs / 3)));
    this.renewTimer.unref();
    if (policy.pruneEveryMs > 0) {
      this.pruneTimer = setInterval(() => this.jobs.start('webhook log prune', () => this.prune()), policy.pruneEveryMs);
      this.pruneTimer.unref();
    }
  }

  /**
   * Renews the leases of the deliveries held waiting for a connection slot (one behind a slow target may wait
   * longer than a lease) or under way, so that only a dead instance's deliveries pass to another. One waiting
   * for a slot that is no longer this instance's (its lease lapsed and another took it) is let go here.
   */
  private async renewLeases(): Promise<void> {
    const byProject = new Map<string, Pending[]>();
    for (const item of this.pending.values()) {
      if (item.state === 'waiting') continue;
      let items = byProject.get(item.projectId);
      if (!items) byProject.set(item.projectId, (items = []));
      items.push(item);
    }
    for (const [projectId, items] of byProject) {
      let lost: Pending[];
      try {
        lost = await this.store.transaction(projectId, async (uow) => {
          const now = Date.now();
          const gone: Pending[] = [];
          for (const item of items) {
            const delivery = await uow.webhook_deliveries.get(item.deliveryId);
            if (delivery?.status !== 'PENDING' || delivery.leased_by !== this.owner) gone.push(item);
            else if ((delivery.lease_until ?? 0) < now + (this.policy.leaseMs * 2) / 3) await uow.webhook_deliveries.update({ ...FRESH, ...delivery, lease_until: now + this.policy.leaseMs });
          }
          return gone;
        });
      } catch (error) {
        if (error instanceof UnknownProject) lost = items;
        else {
          this.log('error', `leases of webhook deliveries of project ${projectId} could not be renewed`, error);
          continue;
        }
      }
      for (const item of lost) if (item.state === 'ready' && this.pending.get(item.deliveryId) === item) this.forget(item);
    }
    this.checkDrained();
  }

  /** Removes settled deliveries past the log's retention (delivery-log.ts); one instance at a time does it. */
  private async prune(): Promise<void> {
    try {
      await this.store.exclusively('webhook-log-prune', () => pruneDeliveryLog(this.store, this.policy, this.clock.now().getTime()));
    } catch (error) {
      this.log('error', 'the webhook delivery log could not be pruned', error);
    }
  }

  /**
   * A lease for a delivery the outbox is about to write, when there is room for it beside what is held and
   * what other units of work were given (outbox.ts `DeliveryWorker`); the delivery is then taken in at commit.
   */
  leaseAtWrite(projectId: string): { leased_by: string; lease_until: number } | undefined {
    if (this.stopping) return undefined;
    const mine = (this.byProject.get(projectId)?.size ?? 0) + (this.atWrite.get(projectId) ?? 0);
    if (mine >= this.policy.queuePerProject || this.pending.size + this.atWriteTotal >= this.policy.queue) return undefined;
    this.atWrite.set(projectId, (this.atWrite.get(projectId) ?? 0) + 1);
    this.atWriteTotal += 1;
    return { leased_by: this.owner, lease_until: Date.now() + this.policy.leaseMs };
  }

  /** Leases given at write whose unit of work failed: nothing was written, and the room is free again. */
  abandoned(projectId: string, leases: number): void {
    this.leasesSettled(projectId, leases);
  }

  /**
   * Called once a unit of work that wrote deliveries committed; returns at once. Those written leased to this
   * instance are taken in as they are, with what the outbox read of their webhooks; the others are claimed.
   */
  committed(projectId: string, written: readonly WrittenDelivery[]): void {
    const leased = written.filter((delivery) => delivery.leased);
    this.leasesSettled(projectId, leased.length);
    const now = Date.now();
    for (const delivery of leased) {
      this.admit({
        projectId,
        deliveryId: delivery.id,
        webhookId: delivery.webhookId,
        eventId: delivery.eventId,
        url: delivery.url,
        origin: originOf(delivery.url),
        secret: delivery.secret,
        body: delivery.body,
        made: 0,
        state: 'ready',
        dueAt: 0,
        readAt: now,
      });
    }
    if (leased.length > 0) this.pump();
    if (leased.length < written.length) this.nudgeSoon();
  }

  private leasesSettled(projectId: string, count: number): void {
    if (count === 0) return;
    const left = (this.atWrite.get(projectId) ?? 0) - count;
    if (left > 0) this.atWrite.set(projectId, left);
    else this.atWrite.delete(projectId);
    this.atWriteTotal -= count;
  }

  /**
   * Claims within CLAIM_GATHER_MS, one claim for every commit in that time. A claim reads the PENDING deliveries
   * (those held included, to skip them), so one per commit cost the API four fifths of its customer creation
   * rate in `make bench` with one webhook; gathered, a claim serves dozens of commits.
   */
  private nudgeSoon(): void {
    // Stopping, what is still to claim is claimed at once, within the shutdown's wait for jobs.
    if (this.stopping) return this.nudge();
    if (this.gatherTimer) return;
    this.gatherTimer = setTimeout(() => {
      this.gatherTimer = undefined;
      this.nudge();
    }, CLAIM_GATHER_MS);
  }

  /** Deliveries held in memory (waiting or under way), for tests and figures. */
  get held(): number {
    return this.pending.size;
  }

  /** Claims due deliveries now (or once the claim under way ends). */
  nudge(): void {
    // Kept for the next start, what commits once stopping began is not taken up here.
    if (this.stopping && this.policy.keepPendingOnStop) return;
    if (this.polling) {
      this.pollAgain = true;
      return;
    }
    this.polling = true;
    this.jobs.start('webhook claims', () => this.poll());
  }

  private schedulePoll(): void {
    if (this.policy.pollMs <= 0 || this.stopping) return;
    this.pollTimer = setTimeout(() => {
      this.pollTimer = undefined;
      this.nudge();
      this.schedulePoll();
    }, this.policy.pollMs);
    this.pollTimer.unref();
  }

  private async poll(): Promise<void> {
    try {
      do {
        this.pollAgain = false;
        await this.claimDue();
      } while (this.pollAgain && !(this.stopping && this.policy.keepPendingOnStop));
    } catch (error) {
      this.log('error', 'webhook deliveries could not be claimed', error);
    } finally {
      this.polling = false;
    }
  }

  /** Claims the due deliveries of every project and takes them in, with their webhooks' addresses. */
  private async claimDue(): Promise<void> {
    const now = Date.now();
    // Only what there is room for: the rest stays PENDING in the store, unleased, until room frees (nothing is
    // dropped for want of room). Past the shutdown deadline, everything left is taken in to be marked FAILED.
    const unbounded = this.deadlinePassed;
    const limit = unbounded ? Number.MAX_SAFE_INTEGER : this.policy.queue - this.pending.size - this.atWriteTotal;
    if (limit <= 0) {
      this.backlog = true;
      return;
    }
    const of: Record<string, number> = {};
    for (const projectId of new Set([...this.byProject.keys(), ...this.atWrite.keys()])) {
      of[projectId] = Math.max(0, this.policy.queuePerProject - (this.byProject.get(projectId)?.size ?? 0) - (this.atWrite.get(projectId) ?? 0));
    }
    const claimed = await this.store.claim('webhook_deliveries', {
      where: and(eq('status', 'PENDING'), compare('lte', 'due_ms', now)),
      index: { field: 'status', value: 'PENDING' },
      orderBy: { field: 'due_ms', direction: 'asc' },
      limit,
      ...(!unbounded && { perProject: { default: this.policy.queuePerProject, of } }),
      owner: this.owner,
      now,
      leaseMs: this.policy.leaseMs,
    });
    // A claim that took all it had room for (in all, or for a project) may have left due deliveries behind.
    const taken = new Map<string, number>();
    for (const { projectId } of claimed) taken.set(projectId, (taken.get(projectId) ?? 0) + 1);
    this.backlog = !unbounded && (claimed.length >= limit || [...taken].some(([projectId, count]) => count >= (of[projectId] ?? this.policy.queuePerProject)));
    const byProject = new Map<string, WebhookDeliveryRow[]>();
    for (const { projectId, row } of claimed) {
      if (this.pending.has(row.id)) continue;
      let rows = byProject.get(projectId);
      if (!rows) byProject.set(projectId, (rows = []));
      rows.push(row);
    }
    for (const [projectId, rows] of byProject) {
      let webhooks: Map<string, Webhook>;
      try {
        webhooks = await this.store.transaction(projectId, async (uow) => {
          const found = new Map<string, Webhook>();
          for (const id of new Set(rows.map((row) => row.webhook_id))) {
            const webhook = await uow.webhooks.get(id);
            if (webhook) found.set(id, webhook);
          }
          return found;
        });
      } catch (error) {
        if (error instanceof UnknownProject) continue;
        throw error;
      }
      for (const row of rows) {
        const webhook = webhooks.get(row.webhook_id);
        // Its webhook was deleted since the claim, and the delivery with it.
        if (!webhook || row.body === null || row.body === undefined) continue;
        this.admit({
          projectId,
          deliveryId: row.id,
          webhookId: row.webhook_id,
          eventId: row.event_id,
          url: webhook.target_url,
          origin: originOf(webhook.target_url),
          secret: webhook.secret,
          body: row.body,
          made: row.attempts.length,
          state: 'ready',
          dueAt: 0,
          readAt: Date.now(),
        });
      }
    }
    this.pump();
  }

  /** Takes a new delivery in; claims take only what there is room for, so the bounds hold without dropping any. */
  private admit(item: Pending): void {
    this.track();
    if (this.stopping && this.policy.keepPendingOnStop) {
      this.release([item]);
      return;
    }
    if (this.deadlinePassed) {
      this.fail([item], STOPPED, 'no last attempt before the shutdown deadline');
      return;
    }
    this.pending.set(item.deliveryId, item);
    let mine = this.byProject.get(item.projectId);
    if (!mine) this.byProject.set(item.projectId, (mine = new Map()));
    mine.set(item.deliveryId, item);
    this.toReady(item);
  }

  private toReady(item: Pending): void {
    if (this.deadlinePassed) {
      this.forget(item);
      this.fail([item], STOPPED, 'no last attempt before the shutdown deadline');
      return;
    }
    item.state = 'ready';
    let queue = this.ready.get(item.origin);
    if (!queue) this.ready.set(item.origin, (queue = new Map()));
    queue.set(item.deliveryId, item);
  }

  /** Lets go of a delivery in every structure that holds it. */
  private forget(item: Pending): void {
    this.pending.delete(item.deliveryId);
    const mine = this.byProject.get(item.projectId);
    mine?.delete(item.deliveryId);
    if (mine?.size === 0) this.byProject.delete(item.projectId);
    const queue = this.ready.get(item.origin);
    queue?.delete(item.deliveryId);
    if (queue?.size === 0) this.ready.delete(item.origin);
    this.waiting.delete(item.deliveryId);
    // Room freed: deliveries a full claim left in the store are taken up now rather than at the next poll.
    if (this.backlog) this.nudgeSoon();
  }

  /** Starts attempts while slots are free, taking origins in turn so one busy target cannot hold up the others. */
  private pump(): void {
    let started = true;
    while (started && this.busy < this.policy.connections) {
      started = false;
      for (const [origin, queue] of [...this.ready]) {
        if (this.busy >= this.policy.connections) break;
        if ((this.busyByOrigin.get(origin) ?? 0) >= this.policy.connectionsPerTarget) continue;
        const item = first(queue)!;
        queue.delete(item.deliveryId);
        // The origin goes to the back of the turn order (or leaves it when it has nothing more).
        this.ready.delete(origin);
        if (queue.size > 0) this.ready.set(origin, queue);
        item.state = 'busy';
        this.busy += 1;
        this.busyByOrigin.set(origin, (this.busyByOrigin.get(origin) ?? 0) + 1);
        void this.attempt(item, queue.size > 0);
        started = true;
      }
    }
    this.checkDrained();
  }

  private async attempt(item: Pending, moreForOrigin: boolean): Promise<void> {
    const number = item.made + 1;
    let attempt: Attempt | undefined;
    try {
      // The webhook's address and secret as they are now; a deleted webhook took the delivery with it.
      // Read within the last moment (claimed just now, its lease fresh), the delivery goes as read; otherwise its
      // lease and its webhook's address are read again first. Reading again for every attempt cost a unit of
      // work per delivery, behind the API's own, and a fast receiver got deliveries slower than they were made.
      if (Date.now() - item.readAt < FRESH_READ_MS || (await this.readTarget(item))) attempt = await this.send(item, number, moreForOrigin);
    } catch (error) {
      // Never expected; a slot must be given back whatever happens, or shutdown would wait for it forever.
      this.log('error', `webhook delivery ${item.deliveryId}: attempt ${number} broke`, error);
      attempt = { number, started_at: isoNow(this.clock), duration_ms: 0, status_code: null, error: UNREACHABLE };
    }
    item.made = number;
    this.busy -= 1;
    const left = (this.busyByOrigin.get(item.origin) ?? 1) - 1;
    if (left > 0) this.busyByOrigin.set(item.origin, left);
    else this.busyByOrigin.delete(item.origin);
    // The slot goes to the next delivery before this one's outcome is written.
    this.pump();

    const delivered = attempt?.error === null;
    const keep = this.stopping && this.policy.keepPendingOnStop;
    const stopped = this.stopping && !keep;
    const last = delivered || number >= this.policy.maxAttempts || stopped;
    const wait = this.policy.backoffMs * 2 ** (number - 1);
    const reason = delivered || !last ? null : number < this.policy.maxAttempts ? STOPPED : EXHAUSTED;
    const status = delivered ? 'DELIVERED' : last ? 'FAILED' : 'PENDING';
    const dueAt = Date.now() + wait;
    let kept = false;
    if (attempt) {
      try {
        kept = await this.record(item, attempt, status, reason, last ? null : dueAt, keep);
      } catch (error) {
        this.log('error', `webhook delivery ${item.deliveryId}: its attempt could not be recorded, so it is given up`, error);
      }
    }
    if (!kept || last || keep) {
      this.forget(item);
      if (delivered) this.hooks.settled?.('delivered', 1);
      // Deleting a webhook (or its project) drops its history and pending retries, as the contract says; say so.
      if (!kept && !delivered) {
        this.hooks.settled?.('discarded', 1);
        this.log('warn', `webhook delivery ${item.deliveryId} DROPPED: event ${item.eventId}; its webhook or project was deleted, or another instance holds it`);
      }
      // Marked FAILED already, with the attempt: only the log line is left to write.
      if (kept && last && !delivered) this.fail([item], reason!, `after ${number} attempt(s) to ${item.url}, last error: ${attempt!.error}`, { marked: true });
    } else if (this.stopping) {
      // The server began stopping while this attempt was written: its last attempt is now.
      this.toReady(item);
    } else {
      this.toWaiting(item, dueAt);
    }
    this.pump();
  }

  /**
   * Before an attempt: checks that the delivery is still this instance's, renews its lease when half of it has
   * run (a delivery may wait long for a slot behind a slow target), and reads the webhook's address and secret
   * as they are now. False when the delivery is no longer this instance's to send (its lease lapsed and another
   * took it over), or its webhook or project is gone.
   */
  private async readTarget(item: Pending): Promise<boolean> {
    let webhook: Webhook | undefined;
    try {
      webhook = await this.store.transaction(item.projectId, async (uow) => {
        const delivery = await uow.webhook_deliveries.get(item.deliveryId);
        if (delivery?.status !== 'PENDING' || delivery.leased_by !== this.owner) return undefined;
        const now = Date.now();
        if ((delivery.lease_until ?? 0) < now + this.policy.leaseMs / 2) await uow.webhook_deliveries.update({ ...FRESH, ...delivery, lease_until: now + this.policy.leaseMs });
        return uow.webhooks.get(item.webhookId);
      });
    } catch (error) {
      if (error instanceof UnknownProject) return false;
      throw error;
    }
    if (!webhook) return false;
    item.url = webhook.target_url;
    item.secret = webhook.secret;
    item.readAt = Date.now();
    return true;
  }

  private async send(item: Pending, number: number, moreForOrigin: boolean): Promise<Attempt> {
    const startedAt = isoNow(this.clock);
    const started = performance.now();
    const outcome = (status: number | null, error: string | null): Attempt => ({
      number,
      started_at: startedAt,
      duration_ms: Math.round(performance.now() - started),
      status_code: status,
      error,
    });
    const url = new URL(item.url);
    // A literal address is connected to without a lookup, so it is checked here.
    const literal = literalAddress(url);
    if (literal && !this.targets.allowPrivateTargets && !isPublicAddress(literal)) return outcome(null, REFUSED_ADDRESS);
    // Connecting and the whole answer together, or the shutdown deadline, end the attempt.
    const controller = new AbortController();
    const { signal } = controller;
    const timer = setTimeout(() => controller.abort(), this.policy.connectTimeoutMs + this.policy.timeoutMs);
    const cutOff = () => controller.abort();
    this.abortAll.signal.addEventListener('abort', cutOff, { once: true });
    let statusCode: number;
    try {
      const answer = await this.dispatcher().request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'promo-loyalty-webhooks/1',
          'x-webhook-signature': signatureHeader(item.secret, item.body, Math.floor(Date.now() / 1000)),
          'x-webhook-id': item.webhookId,
          'x-webhook-delivery-id': item.deliveryId,
          'x-webhook-event-id': item.eventId,
          'x-webhook-attempt': String(number),
        },
        body: item.body,
        signal,
        // Keep the connection only while more deliveries to this target wait for it.
        reset: !moreForOrigin,
      });
      statusCode = answer.statusCode;
      // The answer's body means nothing here; reading a little lets the connection be used again.
      await answer.body.dump({ limit: ANSWER_BODY_LIMIT, signal }).catch(() => undefined);
    } catch (error) {
      return outcome(null, refusedByLookup(error) ? REFUSED_ADDRESS : UNREACHABLE);
    } finally {
      clearTimeout(timer);
      this.abortAll.signal.removeEventListener('abort', cutOff);
    }
    const ok = statusCode >= 200 && statusCode < 300;
    return outcome(statusCode, ok ? null : `answered ${statusCode}`);
  }

  private dispatcher(): Agent {
    this.agent ??= new Agent({
      connections: this.policy.connectionsPerTarget,
      connect: { timeout: this.policy.connectTimeoutMs, lookup: this.lookup },
      headersTimeout: this.policy.timeoutMs,
      bodyTimeout: this.policy.timeoutMs,
      keepAliveTimeout: 2000,
    });
    return this.agent;
  }

  /** The agent's lookup: every address the name has now must be public, or no connection is made. */
  private readonly lookup: LookupFunction = (hostname, options, callback) => {
    this.targets.resolve(hostname).then(
      (addresses) => {
        if (!this.targets.allowPrivateTargets && refusedAddresses(addresses).length > 0) {
          const error: NodeJS.ErrnoException = new Error(`${hostname} resolves to an address webhooks may not reach`);
          error.code = TARGET_REFUSED;
          callback(error, '', 0);
          return;
        }
        const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family;
        const usable = family ? addresses.filter((entry) => entry.family === family) : [...addresses];
        if (usable.length === 0) {
          const error: NodeJS.ErrnoException = new Error(`${hostname} has no address`);
          error.code = 'ENOTFOUND';
          callback(error, '', 0);
        } else if (options.all) {
          callback(null, usable);
        } else {
          callback(null, usable[0]!.address, usable[0]!.family);
        }
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };

  private toWaiting(item: Pending, dueAt: number): void {
    item.state = 'waiting';
    // A retry reads its lease and webhook again first: another instance may have taken it over meanwhile.
    item.readAt = 0;
    item.dueAt = dueAt;
    this.waiting.set(item.deliveryId, item);
    if (dueAt < this.timerAt) this.arm(dueAt);
  }

  private arm(at: number): void {
    clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => this.tick(), Math.max(0, at - Date.now()));
  }

  /** One timer for every retry: starts those due (and those due within a tick), then waits for the next. */
  private tick(): void {
    this.timer = undefined;
    this.timerAt = Infinity;
    const now = Date.now() + TICK_MS;
    let next = Infinity;
    for (const item of [...this.waiting.values()]) {
      if (item.dueAt <= now) {
        this.waiting.delete(item.deliveryId);
        this.toReady(item);
      } else {
        next = Math.min(next, item.dueAt);
      }
    }
    if (next < Infinity) this.arm(Math.max(next, Date.now() + TICK_MS));
    this.pump();
  }

  /** Marks deliveries FAILED with a reason (unless `marked` already) and logs them, in batches. */
  private fail(items: Pending[], reason: string, detail: string, { marked = false } = {}): void {
    this.hooks.settled?.(OUTCOME_OF_REASON[reason] ?? 'failed', items.length);
    for (const { projectId, webhookId, deliveryId } of items) {
      const key = [projectId, webhookId, reason, detail, marked].join('\u0000');
      let batch = this.failing.get(key);
      if (!batch) this.failing.set(key, (batch = { projectId, webhookId, reason, detail, marked, ids: [] }));
      batch.ids.push(deliveryId);
    }
    if (!this.flushing) {
      this.flushing = true;
      setImmediate(() => void this.flush());
    }
  }

  private async flush(): Promise<void> {
    while (this.failing.size > 0) {
      const batches = [...this.failing.values()];
      this.failing = new Map();
      for (const { projectId, webhookId, reason, detail, marked, ids } of batches) {
        try {
          if (!marked) await this.store.transaction(projectId, async (uow) => {
            const now = isoNow(this.clock);
            for (const id of ids) {
              const delivery = await uow.webhook_deliveries.get(id);
              if (delivery?.status !== 'PENDING' || delivery.leased_by !== this.owner) continue;
              await uow.webhook_deliveries.update({
                ...FRESH,
                ...delivery,
                status: 'FAILED',
                failure_reason: reason,
                next_attempt_at: null,
                updated_at: now,
                body: null,
                due_ms: null,
                leased_by: null,
                lease_until: null,
              });
            }
          });
        } catch (error) {
          if (!(error instanceof UnknownProject)) this.log('error', `webhook deliveries of project ${projectId} could not be marked FAILED`, error);
        }
        const named = ids.slice(0, LOGGED_IDS).join(', ');
        const more = ids.length > LOGGED_IDS ? ` and ${ids.length - LOGGED_IDS} more` : '';
        this.log('warn', `webhook deliveries FAILED (${reason}): ${ids.length} to webhook ${webhookId} of project ${projectId}, ${detail}: ${named}${more}`);
      }
    }
    this.flushing = false;
    this.checkDrained();
  }

  /**
   * Adds the attempt to the delivery; false when the delivery (its webhook, or its project) is gone, or is no
   * longer this instance's (its lease lapsed and another took it over). A retry keeps the lease until the
   * retry is due and `leaseMs` past it, unless `release`; a delivery that ended drops its body.
   */
  private async record(item: Pending, attempt: Attempt, status: WebhookDelivery['status'], reason: string | null, dueAt: number | null, release: boolean): Promise<boolean> {
    try {
      return await this.store.transaction(item.projectId, async (uow) => {
        const delivery = await uow.webhook_deliveries.get(item.deliveryId);
        if (!delivery || delivery.leased_by !== this.owner || delivery.status !== 'PENDING') return false;
        const ended = dueAt === null;
        await uow.webhook_deliveries.update({
          ...FRESH,
          ...delivery,
          status,
          attempts: [...delivery.attempts, attempt],
          failure_reason: reason,
          next_attempt_at: ended ? null : new Date(dueAt).toISOString(),
          updated_at: isoNow(this.clock),
          body: ended ? null : delivery.body,
          due_ms: ended ? null : dueAt,
          leased_by: ended || release ? null : this.owner,
          lease_until: ended || release ? null : dueAt + this.policy.leaseMs,
        });
        return true;
      });
    } catch (error) {
      if (error instanceof UnknownProject) return false;
      throw error;
    }
  }

  /** Gives the leases of deliveries this instance holds back to the store, still PENDING (shutdown, kept). */
  private release(items: Pending[]): void {
    const byProject = new Map<string, string[]>();
    for (const item of items) {
      let ids = byProject.get(item.projectId);
      if (!ids) byProject.set(item.projectId, (ids = []));
      ids.push(item.deliveryId);
    }
    for (const [projectId, ids] of byProject) {
      this.releasing += 1;
      this.jobs.start('webhook lease release', async () => {
        try {
          await this.store.transaction(projectId, async (uow) => {
            for (const id of ids) {
              const delivery = await uow.webhook_deliveries.get(id);
              if (delivery?.status !== 'PENDING' || delivery.leased_by !== this.owner) continue;
              await uow.webhook_deliveries.update({ ...FRESH, ...delivery, leased_by: null, lease_until: null });
            }
          });
        } catch (error) {
          if (!(error instanceof UnknownProject)) this.log('error', `webhook deliveries of project ${projectId} could not be released; they are taken up again once their leases lapse`, error);
        } finally {
          this.releasing -= 1;
          this.checkDrained();
        }
      });
    }
  }

  /** While deliveries are held, one background job stands for them, so `jobs.idle()` and shutdown wait for them. */
  private track(): void {
    if (this.drained) return;
    const done = new Promise<void>((resolve) => (this.drained = resolve));
    this.jobs.start('webhook deliveries', () => done);
    if (this.stopping && !this.deadlinePassed) this.armDeadline();
  }

  private checkDrained(): void {
    if (!this.drained || this.pending.size > 0 || this.flushing || this.releasing > 0) return;
    const resolve = this.drained;
    this.drained = undefined;
    clearTimeout(this.deadlineTimer);
    this.deadlineTimer = undefined;
    if (this.stopping && this.agent) {
      // Nothing is left to send: let the connections go (a connect cut off by the deadline among them), so the
      // process can end.
      const agent = this.agent;
      this.agent = undefined;
      void agent.destroy().catch(() => undefined).finally(resolve);
      return;
    }
    resolve();
  }

  private stop(): void {
    if (this.stopping) return;
    this.stopping = true;
    this.deadlineAt = Date.now() + this.policy.shutdownDeadlineMs;
    clearTimeout(this.pollTimer);
    this.pollTimer = undefined;
    if (this.gatherTimer) {
      clearTimeout(this.gatherTimer);
      this.gatherTimer = undefined;
      this.nudge();
    }
    clearInterval(this.renewTimer);
    clearInterval(this.pruneTimer);
    clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = Infinity;
    if (this.policy.keepPendingOnStop) {
      // Back to the store, still PENDING; those under way follow once their attempt is written.
      const idle = [...this.pending.values()].filter((item) => item.state !== 'busy');
      for (const item of idle) this.forget(item);
      this.release(idle);
    } else {
      for (const item of [...this.waiting.values()]) {
        this.waiting.delete(item.deliveryId);
        this.toReady(item);
      }
    }
    if (this.drained) this.armDeadline();
    this.pump();
  }

  private armDeadline(): void {
    if (this.deadlineTimer) return;
    this.deadlineTimer = setTimeout(() => this.deadline(), Math.max(0, this.deadlineAt - Date.now()));
  }

  /** The shutdown deadline: attempts under way are cut off, and what was not attempted is marked FAILED. */
  private deadline(): void {
    this.deadlineTimer = undefined;
    this.deadlinePassed = true;
    this.abortAll.abort();
    const left = [...this.pending.values()].filter((item) => item.state !== 'busy');
    for (const item of left) this.forget(item);
    if (left.length > 0) this.fail(left, STOPPED, 'no last attempt before the shutdown deadline');
    // Due deliveries still waiting in the store for room are taken in (without bound, now) to be marked likewise.
    if (!this.policy.keepPendingOnStop) this.nudge();
    this.checkDrained();
  }
}

interface FailedBatch {
  projectId: string;
  webhookId: string;
  reason: string;
  detail: string;
  /** Whether the deliveries are marked FAILED already (after their last attempt), so only the log line is left. */
  marked: boolean;
  ids: string[];
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

/** Whether an attempt failed because the agent's lookup refused the target's addresses. */
function refusedByLookup(error: unknown): boolean {
  for (let cause = error as { code?: string; cause?: unknown } | undefined, depth = 0; cause && depth < 5; cause = cause.cause as typeof cause, depth++) {
    if (cause.code === TARGET_REFUSED) return true;
  }
  return false;
}
