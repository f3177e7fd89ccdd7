/**
 * The counters of campaign summaries, kept as running totals per campaign and hour (UTC) while events are
 * recorded. A summary adds up a campaign's hours instead of reading its events, so it costs the same however
 * long the log has grown, and it does not change when the oldest events are dropped from the log.
 */
import type { DomainContext } from './context.js';
import type { EventRecord, EventType } from './events.js';
import { table } from '../store/schema.js';

export const COUNTED = [
  'redemptions',
  'redemptions_succeeded',
  'redemptions_failed',
  'rollbacks',
  'rollbacks_succeeded',
  'rollbacks_failed',
  'validations',
  'validations_succeeded',
  'validations_failed',
  'publications',
  'publications_succeeded',
  'publications_failed',
  'vouchers_created',
  'vouchers_deleted',
  'orders_amount',
  'orders_rolledback_amount',
  'discounted_amount',
  'rolledback_discounted_amount',
] as const;

export type Counter = (typeof COUNTED)[number];
export type Counters = Record<Counter, number>;

/** One campaign's counters for one hour. */
export interface CampaignCounterBucket {
  /** `<campaign ID>@<hour>`; the `counted_in` of the events it counts. */
  id: string;
  campaign_id: string;
  /** The hour's first instant, ISO 8601. */
  hour: string;
  /** How many events were counted into it, to tell whether the log still holds them all. */
  events: number;
  counters: Partial<Counters>;
}

export const CAMPAIGN_COUNTERS_TABLE = table<CampaignCounterBucket>({ unique: [], indexed: ['campaign_id'] });

const HOUR_MS = 3_600_000;
const one = () => 1;
const field = (name: string) => (data: Record<string, unknown>) => Number(data[name] ?? 0);

/** Which summary counters each recorded event moves, and by how much. */
const SUMMARY_COUNTS: Partial<Record<EventType, [Counter, (data: Record<string, unknown>) => number][]>> = {
  'voucher.created': [['vouchers_created', one]],
  'campaign.vouchers.generation.completed': [['vouchers_created', field('count')]],
  'voucher.deleted': [['vouchers_deleted', one]],
  'validation.succeeded': [['validations', one], ['validations_succeeded', one]],
  'validation.failed': [['validations', one], ['validations_failed', one]],
  'redemption.succeeded': [
    ['redemptions', one],
    ['redemptions_succeeded', one],
    ['orders_amount', field('order_amount')],
    ['discounted_amount', field('discount_amount')],
  ],
  'redemption.failed': [['redemptions', one], ['redemptions_failed', one]],
  'redemption.rollback.succeeded': [
    ['rollbacks', one],
    ['rollbacks_succeeded', one],
    ['orders_rolledback_amount', field('order_amount')],
    ['rolledback_discounted_amount', field('discount_amount')],
  ],
  'redemption.rollback.failed': [['rollbacks', one], ['rollbacks_failed', one]],
  'publication.succeeded': [['publications', one], ['publications_succeeded', one]],
  'publication.failed': [['publications', one], ['publications_failed', one]],
};

export function zeroCounters(): Counters {
  return Object.fromEntries(COUNTED.map((name) => [name, 0])) as Counters;
}

/**
 * The bucket an event of this kind, in this campaign, at this moment counts into; null when it counts into
 * none. Recorded on the event as `counted_in`.
 */
export function countedIn(type: EventType, campaignId: string | null, createdAt: string): string | null {
  if (!campaignId || !SUMMARY_COUNTS[type]) return null;
  const hour = hourOf(createdAt);
  const last = lastKeys.get(campaignId);
  if (last !== undefined && last.hour === hour) return last.key;
  if (lastKeys.size >= LAST_KEYS_AT_MOST) lastKeys.clear();
  // One flat string, which every event of the campaign's hour then shares (and the index finds by identity).
  const key = [campaignId, '@', hour].join('');
  lastKeys.set(campaignId, { hour, key });
  return key;
}

/**
 * Each campaign's `counted_in` of the last hour it had an event in. Made anew for each event, the value was a
 * string of its own in every stored event (one made of pieces, which takes more room than its text).
 */
const lastKeys = new Map<string, { hour: string; key: string }>();
const LAST_KEYS_AT_MOST = 10_000;

/** A UTC timestamp as the server writes them (`toISOString`), whose hour is its first 13 characters. */
const UTC_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * The start of the hour a timestamp falls in, as a timestamp. The server's own timestamps are cut at the hour
 * (parsing and formatting a Date twice per counted event was a few µs of a validation in `make bench`); any
 * other form is parsed.
 */
export function hourOf(createdAt: string): string {
  if (UTC_TIMESTAMP.test(createdAt)) return `${createdAt.slice(0, 13)}:00:00.000Z`;
  return new Date(Math.floor(Date.parse(createdAt) / HOUR_MS) * HOUR_MS).toISOString();
}

function addCounts(into: Partial<Counters>, type: EventType, data: Record<string, unknown>): void {
  for (const [counter, amount] of SUMMARY_COUNTS[type] ?? []) into[counter] = (into[counter] ?? 0) + amount(data);
}

/**
 * Adds a just recorded event to its campaign's counters; part of the unit of work that records it. The amounts
 * are added by the store (Table.add), not read and written back: every redemption of a campaign moves its
 * hour's bucket, so units of work redeeming different vouchers of one campaign would otherwise all change one
 * row, and could not run at once.
 */
export async function countEvent(ctx: DomainContext, event: EventRecord): Promise<void> {
  if (!event.counted_in || !event.campaign_id) return;
  const counts: Partial<Counters> = {};
  addCounts(counts, event.type, event.data);
  const amounts: Record<string, number> = { events: 1 };
  for (const [name, amount] of Object.entries(counts)) amounts[`counters.${name}`] = amount;
  await ctx.uow.campaign_counters.add({ id: event.counted_in, campaign_id: event.campaign_id, hour: hourOf(event.created_at), events: 0, counters: {} }, amounts);
}

/**
 * The campaign's counters for what happened between `from` and `to` (epoch milliseconds, both included).
 * Hours wholly inside the window add their totals. An hour the window cuts is counted event by event while
 * the log still holds every event counted into it; once the oldest of them are dropped from the log, it
 * counts whole if the window holds its middle, and not at all otherwise.
 */
export async function campaignCounters(ctx: DomainContext, campaignId: string, from: number, to: number): Promise<Counters> {
  const totals = zeroCounters();
  const add = (counters: Partial<Counters>) => {
    for (const name of COUNTED) totals[name] += counters[name] ?? 0;
  };
  for (const bucket of await ctx.uow.campaign_counters.findBy('campaign_id', campaignId)) {
    const start = Date.parse(bucket.hour);
    const end = start + HOUR_MS - 1;
    if (end < from || start > to) continue;
    if (start >= from && end <= to) {
      add(bucket.counters);
      continue;
    }
    const events = await ctx.uow.events.findBy('counted_in', bucket.id);
    if (events.length === bucket.events) {
      const within: Partial<Counters> = {};
      for (const event of events) {
        const at = Date.parse(event.created_at);
        if (at >= from && at <= to) addCounts(within, event.type, event.data);
      }
      add(within);
    } else if (start + HOUR_MS / 2 >= from && start + HOUR_MS / 2 <= to) {
      add(bucket.counters);
    }
  }
  return totals;
}

/** Forgets a deleted campaign's counters. */
export async function dropCampaignCounters(ctx: DomainContext, campaignId: string): Promise<void> {
  for (const bucket of await ctx.uow.campaign_counters.findBy('campaign_id', campaignId)) await ctx.uow.campaign_counters.delete(bucket.id);
}
