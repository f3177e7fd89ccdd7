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
import { lookup as systemLookup } from 'node:dns/promises';
import type { LookupFunction } from 'node:net';
import { Agent } from 'undici';
import { hostname } from 'node:os';
import { isoNow, type Clock } from '../domain/clock.js';
import { randomBytes } from 'node:crypto';
import { isPublicAddress, literalAddress, refusedAddresses, type HostResolver } from '../domain/management/webhook-targets.js';
import type { Webhook, WebhookDelivery, WebhookDeliveryRow } from '../domain/management/webhooks.js';
import type { Jobs } from '../jobs.js';
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
  /** Deliveries of one project waiting or under way; past it, the project's oldest waiting are dropped. */
  queuePerProject: number;
  /** Deliveries of every project waiting or under way; past it, the oldest waiting are dropped. */
  queue: number;
  /** On shutdown, how long pending deliveries have in all for their last attempt (or, kept, to finish the attempt under way). */
  shutdownDeadlineMs: number;
  /** How often the store is asked for due deliveries (those of other instances, lapsed leases, retries released); 0 never. */
  pollMs: number;
  /**
   * How long a claimed delivery stays this instance's past the moment it is due: long enough for it to wait
   * for a connection slot and be attempted. Past it, another instance may take the delivery over.
   */
  leaseMs: number;
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
  connectionsPerTarget: 4,
  connections: 64,
  queuePerProject: 1000,
  queue: 10_000,
  shutdownDeadlineMs: 10_000,
  pollMs: 1000,
  leaseMs: 300_000,
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
export const DROPPED = 'dropped: queue full';
export const STOPPED = 'server stopped';
export const EXHAUSTED = 'no attempt left';

/** How much of an answer's body is read (and ignored) so the connection can be used again. */
const ANSWER_BODY_LIMIT = 64 * 1024;
/** Retries due within this long of each other are started by one timer tick. */
const TICK_MS = 20;
/** How many delivery IDs one log line names. */
const LOGGED_IDS = 20;

const TARGET_REFUSED = 'ERR_WEBHOOK_TARGET_REFUSED';

/** How a delivery ended: delivered, or FAILED for one of the reasons above, or dropped with its webhook or project. */
export type DeliveryOutcome = 'delivered' | 'failed' | 'dropped' | 'stopped' | 'discarded';

const OUTCOME_OF_REASON: Record<string, DeliveryOutcome> = { [EXHAUSTED]: 'failed', [DROPPED]: 'dropped', [STOPPED]: 'stopped' };

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
}

type Attempt = WebhookDelivery['attempts'][number];

function first<V>(map: Map<string, V>): V | undefined {
  return map.values().next().value;
}

export class WebhookDeliveries {
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
    this.schedulePoll();
  }

  /** Called once a unit of work that wrote deliveries committed; returns at once. */
  readonly committed = (_projectId: string, deliveries: number): void => {
    if (deliveries > 0) this.nudge();
  };

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
    const claimed = await this.store.claim('webhook_deliveries', {
      where: and(eq('status', 'PENDING'), compare('lte', 'due_ms', now)),
      orderBy: { field: 'due_ms', direction: 'asc' },
      limit: this.policy.queue,
      owner: this.owner,
      now,
      leaseMs: this.policy.leaseMs,
    });
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
        });
      }
    }
    this.pump();
  }

  /** Takes a new delivery in, dropping the oldest waiting ones past a bound (this one, if nothing older can go). */
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
    const dropped: Pending[] = [];
    while (mine.size > this.policy.queuePerProject) {
      const oldest = this.oldestIdle(mine);
      if (!oldest) break;
      this.forget(oldest);
      dropped.push(oldest);
    }
    while (this.pending.size > this.policy.queue) {
      const oldest = this.oldestIdle(this.pending);
      if (!oldest) break;
      this.forget(oldest);
      dropped.push(oldest);
    }
    if (dropped.length > 0) this.fail(dropped, DROPPED, `more than ${this.policy.queuePerProject} held in the project or ${this.policy.queue} in all`);
  }

  /** The oldest delivery not being attempted; those under way number at most `connections`, so this stays short. */
  private oldestIdle(among: Map<string, Pending>): Pending | undefined {
    for (const item of among.values()) if (item.state !== 'busy') return item;
    return undefined;
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
      if (await this.readTarget(item)) attempt = await this.send(item, number, moreForOrigin);
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
