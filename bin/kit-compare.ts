/**
 * The kit's `compare` command: two runs of the same scenarios, one against each server, paired exchange by
 * exchange, and every difference in status and body between them.
 *
 * Exchanges are paired within a scenario (its test file and full name): by operation, in the order the
 * scenario sent them, so requests it sends together pair up however their answers arrive; calls of one
 * operation sent at once (each before the answer to the one before) meet their equals, since which of them wins
 * a race is up to each server. A poll (the same GET
 * sent again and again until something is ready) counts once, by its last answer, since each server may need a
 * different number of polls.
 *
 * Values that differ by nature are normalised, not compared as text (README, "Compare two implementations"):
 * - a generated ID, code or key (a word of at least 6 characters holding a digit, or of capitals joined by
 *   hyphens as codes with a prefix are (`C-HNBGD`), of at least 8 holding both upper- and lower-case letters, or
 *   with a part of at least 8 hex digits; an ID's prefix such as `vch_` must match) on one side is paired with the word at the same place on the other
 *   the first time either appears in the scenario; from then on each must meet only its partner, so a response
 *   that names another object than its counterpart does is a difference;
 * - a timestamp (ISO 8601 date-time) or date is compared as its distance from the start of its run of the
 *   scenario: equal within a minute (a day for dates); a timestamp before that start on both sides (an object
 *   an earlier scenario made) need only be before it on both;
 * - each side's own base URL in a body (absolute links) is read as `{base-url}`;
 * - a measured duration (`processing_time`) need only be a number on both sides;
 * - a whole number of seconds since 1970 under a key ending in `_at` (an OAuth token's `expires_at`) is a
 *   timestamp, compared as above;
 * - a masked secret's visible tail (`whsec_************3365`: the word after a run of 4 or more `*`) is a
 *   generated value, paired as above;
 * - a voucher code (a string under a key `code` or `voucher_code`, or in such a column of a CSV export, in any
 *   answer of the scenario on that side) is a generated value wherever it appears, whatever characters it is
 *   made of (`lvgwarye`, `ABCCAB`);
 * - a cursor walk (calls of one list operation, each asking for the page after the cursor the one before
 *   answered, as `starting_after_id=<more_starting_after>`) is compared as one list: its pages' items merged
 *   in the order sent, on its last page; each earlier page keeps every other field and the length of its list,
 *   and loses only the cursor the next call sent, since in an order by a random value (IDs) each side's pages
 *   split the same items at other places;
 * - a list sorted on both sides by ID, by code, by name or by when its items were made is compared as a set:
 *   each item must meet an equal one, in whatever order (IDs, codes and the suite's unique names are random,
 *   and items made in the same millisecond have no order among them).
 * - a page of a list in ID order that is only part of the list on both sides (`has_more`, or a `total` past its
 *   length) and whose items do not meet as a set holds items drawn by each side's random IDs: its other fields
 *   are compared as usual, its list by length and by the fields each item carries.
 * Everything else (numbers, booleans, enumerations, names, the shape of objects and the length of lists) must
 * be equal.
 */
import { relative } from 'node:path';
import type { KitRecord } from '../tests/contract/kit-record.js';
import type { JestResults } from './kit-report.js';

export type Exchange = Extract<KitRecord, { kind: 'exchange' }>;

export interface Difference {
  /** The scenario: its test file, relative to the package, and its full name. */
  scenario: string;
  /** The operation (its operationId, or the method and path when the contract has none). */
  operation: string;
  /** Where in the exchange: `status`, a JSON path into the body (`$.vouchers[0].code`), or `calls`/`outcome`. */
  path: string;
  a: unknown;
  b: unknown;
}

export interface CompareReport {
  baseUrl: string;
  otherBaseUrl: string;
  areas: string[];
  startedAt: string;
  finishedAt: string;
  scenarios: { compared: number; onlyA: number; onlyB: number };
  exchanges: { compared: number };
  differences: Difference[];
  ok: boolean;
}

/** What the report says in place of a value one side does not have. */
export const ABSENT = '(absent)';

const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
/** Words and timestamps in a text; what lies between them must be the same on both sides. */
const TOKENS = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})|[A-Za-z0-9_-]+/g;
/** Fields that hold what the server measured, such as how long an async action took. */
const MEASURED = /\.processing_time$/;
/** A key whose whole-number value may be seconds since 1970 (`expires_at`). */
const INSTANT_KEY = /(?:^|_)at$/;
/** Whole seconds since 1970 from 2001 to 5138: smaller and larger numbers are not read as instants. */
const UNIX_SECONDS = [1e9, 1e11] as const;
/** The visible tail of a masked secret: the word right after a run of asterisks. */
const MASK = /\*{4,}$/;
/** Keys whose string values are voucher codes, which a server may make of any characters its charset allows. */
const CODE_KEYS = new Set(['code', 'voucher_code']);
const MINUTE = 60_000;
const DAY = 86_400_000;

/** A word a server or the suite generates: long enough and with a digit in it, or a run of hex digits. */
function generated(word: string): boolean {
  if (word.split(/[-_]/).some((part) => /^[0-9a-f]{8,}$/.test(part))) return true;
  // A tracking ID: `track_` and random base64url, which may hold no digit and no capital (`track_ybud-ezhoflj`).
  if (/^track_[A-Za-z0-9_-]{8,}$/.test(word)) return true;
  if (word.length < 6) return false;
  // A code made from a pattern with a prefix or suffix (`C-HNBGD`) may hold no digit; enumerations join with `_`.
  return /\d/.test(word) || /^[A-Z0-9]+(?:-[A-Z0-9]+)+$/.test(word) || (word.length >= 8 && /[a-z]/.test(word) && /[A-Z]/.test(word));
}

/** An ID's prefix (`vch_` of `vch_0a9f…`, `track_` of a tracking ID). */
const prefixOf = (word: string) => /^[a-z]+_/.exec(word)?.[0] ?? '';

/**
 * Whether two generated words have the same prefix, which both sides must agree on; except that of two random
 * tokens with capitals in them (base64url, as a download link's), one may seem to have a prefix (`d_Ma…`) where
 * the other has none, since their first letters and `_` are random too.
 */
function samePrefix(a: string, b: string): boolean {
  const [prefixA, prefixB] = [prefixOf(a), prefixOf(b)];
  if (prefixA === prefixB) return true;
  return (prefixA === '' || prefixB === '') && /[A-Z]/.test(a) && /[A-Z]/.test(b);
}

/** One scenario's comparison: the pairs of generated words met so far, and when each run of it started. */
class Scenario {
  private readonly aToB = new Map<string, string>();
  private readonly bToA = new Map<string, string>();
  readonly differences: Difference[] = [];
  /**
   * Set while the exchange compared asked for a page after a cursor the client made up (the same literal on
   * both sides, not an ID either server issued): which items, and how many, follow it is drawn by each side's
   * random IDs.
   */
  cursorMadeUp = false;

  constructor(
    private readonly name: string,
    private readonly startA: number,
    private readonly startB: number,
    /** Each side's voucher codes: generated values whatever they are made of. */
    private readonly codes: { a: Set<string>; b: Set<string> } = { a: new Set(), b: new Set() },
  ) {}

  differ(operation: string, path: string, a: unknown, b: unknown): void {
    this.differences.push({ scenario: this.name, operation, path, a, b });
  }

  /**
   * Whether two words are the same generated value: paired before, or both new and pairable now. `masked`:
   * both are the visible tails of masked secrets, which are generated however short.
   */
  private sameWord(a: string, b: string, masked = false): boolean {
    if (a === b && !this.aToB.has(a) && !this.bToA.has(b)) return true;
    const partner = this.aToB.get(a);
    if (partner !== undefined || this.bToA.has(b)) return partner === b;
    const isGenerated = (word: string, codes: Set<string>) => masked || generated(word) || codes.has(word);
    if (!isGenerated(a, this.codes.a) || !isGenerated(b, this.codes.b) || a.length !== b.length || !samePrefix(a, b)) return false;
    this.aToB.set(a, b);
    this.bToA.set(b, a);
    return true;
  }

  private sameTime(a: string, b: string): boolean {
    const [ta, tb] = [Date.parse(a), Date.parse(b)];
    if (Number.isNaN(ta) || Number.isNaN(tb)) return false;
    return this.sameInstant(ta, tb, DATE.test(a));
  }

  /** Two instants (ms since 1970), each read from its side's start of the scenario; `day`: dates, a day apart at most. */
  private sameInstant(ta: number, tb: number, day = false): boolean {
    // Made before the scenario began on both sides (an object of an earlier scenario, read in a list): each
    // side's earlier scenarios took their own time, so only that both are in the past counts.
    if (ta < this.startA && tb < this.startB && !day) return true;
    return Math.abs(ta - this.startA - (tb - this.startB)) <= (day ? DAY : MINUTE);
  }

  /** Pairs of codes met whole that hold characters between words, as each side spells them: plain and in a URL. */
  private readonly spelledCodes: Array<[string, string]> = [];

  /**
   * Whether two strings are voucher codes of each side (codesIn) that are one generated value, taken whole: a
   * charset of punctuation (`"c{7|ref`) makes codes whose differing characters fall between words. A pair
   * holding such characters is then read as its partner wherever it appears in a text (a link, encoded).
   */
  private sameCode(a: string, b: string): boolean {
    if (!this.codes.a.has(a) || !this.codes.b.has(b) || a.length !== b.length || !samePrefix(a, b)) return false;
    const partner = this.aToB.get(a);
    if (partner !== undefined || this.bToA.has(b)) return partner === b;
    this.aToB.set(a, b);
    this.bToA.set(b, a);
    if (a.split(TOKENS).some((between) => between !== '')) this.spelledCodes.push([a, b], [encodeURIComponent(a), encodeURIComponent(b)]);
    return true;
  }

  private sameText(given: string, b: string): boolean {
    if (given === b || this.sameCode(given, b)) return true;
    // A code paired whole reads as its partner inside a longer text.
    const a = this.spelledCodes.reduce((text, [codeA, codeB]) => (text.includes(codeA) ? text.split(codeA).join(codeB) : text), given);
    if (a === b) return true;
    if ((DATE_TIME.test(a) && DATE_TIME.test(b)) || (DATE.test(a) && DATE.test(b))) return this.sameTime(a, b);
    const wordsA = [...a.matchAll(TOKENS)];
    const wordsB = [...b.matchAll(TOKENS)];
    if (wordsA.length !== wordsB.length || a.split(TOKENS).join('\u0000') !== b.split(TOKENS).join('\u0000')) return false;
    return wordsA.every((match, index) => {
      const [word, other] = [match[0], wordsB[index]![0]];
      if (word === other) return true;
      if (DATE_TIME.test(word) && DATE_TIME.test(other)) return this.sameTime(word, other);
      // The separators are equal on both sides, so one tail behind a mask means both are.
      return this.sameWord(word, other, MASK.test(a.slice(0, match.index)));
    });
  }

  /**
   * Which key of B's object each key of A's meets: the same key, or, where objects are keyed by generated
   * values (a customer's programs by name), the partner of a generated key, paired in the order the keys come.
   */
  private keyPartners(keysA: string[], keysB: string[]): Map<string, string> {
    const partners = new Map(keysA.filter((key) => keysB.includes(key)).map((key) => [key, key]));
    const leftB = keysB.filter((key) => !partners.has(key));
    const leftA = keysA.filter((key) => !partners.has(key));
    for (const key of [...leftA.filter((key) => this.aToB.has(key)), ...leftA.filter((key) => !this.aToB.has(key))]) {
      const index = leftB.findIndex((other) => this.aToB.get(key) === other || (!this.aToB.has(key) && !this.bToA.has(other)));
      if (index === -1 || !this.sameText(key, leftB[index]!)) continue;
      partners.set(key, leftB[index]!);
      leftB.splice(index, 1);
    }
    return partners;
  }

  /** Whether two values would compare equal; the pairs of generated words are left as they were. */
  private wouldMatch(a: unknown, b: unknown): boolean {
    const saved = [new Map(this.aToB), new Map(this.bToA), this.differences.length] as const;
    this.compare('', '', a, b);
    const equal = this.differences.length === saved[2];
    this.differences.length = saved[2];
    for (const [map, copy] of [
      [this.aToB, saved[0]],
      [this.bToA, saved[1]],
    ] as const) {
      map.clear();
      for (const [key, value] of copy) map.set(key, value);
    }
    return equal;
  }

  /**
   * Which of B's items each of A's meets: the one at the same index, unless both lists are sorted by a value
   * whose order differs by nature (GENERATED_ORDERS); then each item meets the first of B's that it equals,
   * where every item has one.
   */
  private matchedOrder(a: unknown[], b: unknown[]): number[] {
    const same = a.map((_, index) => index);
    if (a.length < 2 || a.length > MATCHED_MAX || !GENERATED_ORDERS.some((keys) => sortedBy(a, keys) && sortedBy(b, keys))) return same;
    return this.matchedAsSet(a, b);
  }

  /** Each of A's items meets the first of B's that it equals, when every item has one; else the same index. */
  matchedAsSet(a: unknown[], b: unknown[]): number[] {
    const same = a.map((_, index) => index);
    if (a.every((item, index) => this.wouldMatch(item, b[index]))) return same;
    const left = new Set(same);
    const order = a.map((item) => {
      const partner = [...left].find((index) => this.wouldMatch(item, b[index]));
      if (partner === undefined) return -1;
      left.delete(partner);
      this.compare('', '', item, b[partner]);
      return partner;
    });
    return order.includes(-1) ? same : order;
  }

  /**
   * A page of a list in ID, code or name order that is only part of it on both sides (`has_more`, or a
   * `total` past its length): which items fill it is drawn by each side's random values. Its envelope (every
   * field but the list and the cursor to its last item) is compared as usual; its items as a set when they meet
   * as one, else by the list's length and the fields its items carry (a field that every item of one side's page
   * carries and none of the other's is a difference, shown with each value), not by which item it is. After a cursor the client made up
   * (cursorMadeUp), the page is drawn whatever its length, and its `has_more` too. Returns whether the page was
   * compared so.
   */
  private partialPages(operation: string, path: string, a: Record<string, unknown>, b: Record<string, unknown>): boolean {
    const key = typeof a.data_ref === 'string' ? a.data_ref : 'data';
    const [itemsA, itemsB] = [a[key], b[key]];
    if (!Array.isArray(itemsA) || !Array.isArray(itemsB) || (itemsA.length !== itemsB.length && !this.cursorMadeUp) || itemsA.length + itemsB.length === 0) return false;
    const partial = (page: Record<string, unknown>, items: unknown[]) => this.cursorMadeUp || page.has_more === true || (typeof page.total === 'number' && page.total > items.length);
    if (!partial(a, itemsA) || !partial(b, itemsB) || !RANDOM_ORDERS.some((keys) => sortedBy(itemsA, keys) && sortedBy(itemsB, keys))) return false;
    const same = this.wouldMatch(itemsA, itemsB);
    // The cursor to the next page names each side's last item, drawn as the rest (checked to be that item's ID);
    // after a made-up cursor, how many items follow, and so whether more do, is drawn too.
    const last = (page: Record<string, unknown>, items: unknown[]) => isObject(items.at(-1)) && page.more_starting_after === (items.at(-1) as Record<string, unknown>).id;
    const drawn = [...(last(a, itemsA) && last(b, itemsB) ? ['more_starting_after'] : []), ...(this.cursorMadeUp ? ['has_more', 'more_starting_after'] : [])];
    const envelope = (page: Record<string, unknown>) => Object.fromEntries(Object.entries(page).filter(([field]) => field !== key && !drawn.includes(field)));
    // The items first, so that IDs pair as the items do before the envelope names any.
    if (same) {
      this.compare(operation, `${path}.${key}`, itemsA, itemsB);
      this.compare(operation, path, envelope(a), envelope(b));
      return true;
    }
    this.compare(operation, path, envelope(a), envelope(b));
    // Other items carry other optional fields (a description on some, and on none of a short page), so a field
    // is a difference only where every item of one side's page carries it and none of the other's does; each
    // item is shown, with its value.
    const fieldsOf = (items: unknown[]) => new Set(items.flatMap((item) => (isObject(item) ? Object.keys(item) : [`(${typeof item})`])));
    const [fieldsA, fieldsB] = [fieldsOf(itemsA), fieldsOf(itemsB)];
    const carried = (items: unknown[], field: string) => items.every((item) => (isObject(item) ? field in item : field === `(${typeof item})`));
    const unmatched = (items: unknown[], others: Set<string>, side: 'a' | 'b') =>
      items.forEach((item, index) => {
        const at = `${path}.${key}[${index}]`;
        const report = (where: string, value: unknown) => (side === 'a' ? this.differ(operation, where, value, ABSENT) : this.differ(operation, where, ABSENT, value));
        if (!isObject(item)) {
          if (!others.has(`(${typeof item})`) && carried(items, `(${typeof item})`)) report(at, item);
          return;
        }
        for (const field of Object.keys(item).sort()) if (!others.has(field) && carried(items, field)) report(`${at}.${field}`, item[field]);
      });
    unmatched(itemsA, fieldsB, 'a');
    unmatched(itemsB, fieldsA, 'b');
    return true;
  }

  /** Every difference between two JSON values, from `path` down. */
  compare(operation: string, path: string, a: unknown, b: unknown): void {
    if (typeof a === 'string' && typeof b === 'string') {
      if (!this.sameText(a, b)) this.differ(operation, path, a, b);
      return;
    }
    if (Array.isArray(a) && Array.isArray(b)) {
      if (a.length !== b.length) return this.differ(operation, path, `${a.length} items`, `${b.length} items`);
      const order = this.matchedOrder(a, b);
      a.forEach((item, index) => this.compare(operation, `${path}[${index}]`, item, b[order[index]!]));
      return;
    }
    if (isObject(a) && isObject(b)) {
      if (this.partialPages(operation, path, a, b)) return;
      const at = (key: string) => (/^[A-Za-z_$][\w$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`);
      const keysB = this.keyPartners(Object.keys(a), Object.keys(b));
      for (const key of Object.keys(a).sort()) {
        const partner = keysB.get(key);
        if (partner === undefined) this.differ(operation, at(key), a[key], ABSENT);
        else this.compare(operation, at(key), a[key], b[partner]);
      }
      const paired = new Set(keysB.values());
      for (const key of Object.keys(b).sort()) if (!paired.has(key)) this.differ(operation, at(key), ABSENT, b[key]);
      return;
    }
    // A duration the server measured (how long an async action took) differs by nature; only its type is compared.
    if (MEASURED.test(path) && typeof a === 'number' && typeof b === 'number') return;
    if (unixSeconds(a) && unixSeconds(b) && INSTANT_KEY.test(/\.(\w+)$/.exec(path)?.[1] ?? '')) {
      if (!this.sameInstant(a * 1000, b * 1000)) this.differ(operation, path, a, b);
      return;
    }
    if (!Object.is(a, b)) this.differ(operation, path, a, b);
  }
}

/**
 * The orders in which items may differ by nature: by ID or code, which each server generates, by name (names
 * the suite makes unique with a random part), and by when the items were made, where items made in the same
 * millisecond may come in either order (the memory store keeps the order they were made in; PostgreSQL
 * promises none among equals). Where the values are equal on both sides the order is too, so only values
 * that differ by nature are matched out of order.
 */
const GENERATED_ORDERS = [['id'], ['code'], ['name'], ['created_at']];
/** The orders by a value each side draws at random: which items a part of such a list holds is drawn too. */
const RANDOM_ORDERS = [['id'], ['code'], ['name']];
/** Lists longer than this are compared in order only (matching is quadratic). */
const MATCHED_MAX = 500;

/** Whether every item is an object with these keys and the list is sorted by them, either way. */
function sortedBy(items: unknown[], keys: string[]): boolean {
  if (!items.every((item) => isObject(item) && keys.every((key) => typeof item[key] === 'string'))) return false;
  const tuples = items.map((item) => keys.map((key) => (item as Record<string, string>)[key]!));
  const order = (x: string[], y: string[]) => {
    for (let index = 0; index < x.length; index++) if (x[index] !== y[index]) return x[index]! < y[index]! ? -1 : 1;
    return 0;
  };
  const steps = tuples.slice(1).map((tuple, index) => order(tuples[index]!, tuple));
  return steps.every((step) => step <= 0) || steps.every((step) => step >= 0);
}

const unixSeconds = (value: unknown): value is number => Number.isInteger(value) && (value as number) >= UNIX_SECONDS[0] && (value as number) < UNIX_SECONDS[1];

/** Every string under a key `code` or `voucher_code` in a JSON value, or in such a column of a CSV file (an export). */
function codesIn(value: unknown, into: Set<string>): Set<string> {
  if (typeof value === 'string') {
    const [header = '', ...rows] = value.split(/\r?\n/);
    const column = header.split(',').findIndex((name) => CODE_KEYS.has(name));
    // The columns before the code's hold no quoted field (whose commas would shift it).
    if (column !== -1 && !header.includes('"')) for (const row of rows) if (!row.split(',', column).join().includes('"')) into.add(row.split(',')[column] ?? '');
  } else if (Array.isArray(value)) for (const item of value) codesIn(item, into);
  else if (isObject(value)) {
    for (const [key, item] of Object.entries(value)) {
      if (CODE_KEYS.has(key) && typeof item === 'string') into.add(item);
      else codesIn(item, into);
    }
  }
  return into;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** What a side's absolute URLs start with: its base URL's origin, under each name of a loopback host too. */
export function originsOf(baseUrl: string): string[] {
  const url = new URL(baseUrl);
  const loopback = ['localhost', '127.0.0.1', '[::1]'];
  const hosts = loopback.includes(url.hostname) ? loopback : [url.hostname];
  return hosts.map((host) => `${url.protocol}//${host}${url.port ? `:${url.port}` : ''}`);
}

/** The body as JSON (or text), each of the side's own origins written `{base-url}`. */
function parsed(body: string | undefined, origins: string[]): unknown {
  if (body === undefined || body === '') return ABSENT;
  const text = origins.reduce((written, origin) => written.split(origin).join('{base-url}'), body);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** The operation an exchange called, as the report names it. */
function operationOf(exchange: Exchange): string {
  if (exchange.operationId) return exchange.operationId;
  // No operation of the contract: the path, with each segment that holds a digit (an ID, a code) left out.
  const path = new URL(exchange.url).pathname.replace(/\/[^/]*\d[^/]*/g, '/…');
  return `${exchange.method} ${path}`;
}

/** A scenario's exchanges in the order sent, each poll counted once, by its last answer. */
function sequence(exchanges: Exchange[]): Exchange[] {
  const sorted = [...exchanges].sort((x, y) => (x.seq ?? 0) - (y.seq ?? 0));
  return sorted.filter((exchange, index) => {
    const next = sorted[index + 1];
    return !(exchange.method === 'GET' && next && next.method === 'GET' && next.url === exchange.url);
  });
}

function byScenario(records: KitRecord[], rootDir: string): Map<string, Exchange[]> {
  const scenarios = new Map<string, Exchange[]>();
  for (const entry of records) {
    if (entry.kind !== 'exchange' || entry.seq === undefined) continue;
    const name = `${relative(rootDir, entry.file)} › ${entry.test}`;
    scenarios.set(name, [...(scenarios.get(name) ?? []), entry]);
  }
  return scenarios;
}

/** Each scenario's outcome (passed, failed, skipped) in one run. */
function outcomes(results: JestResults, rootDir: string): Map<string, string> {
  return new Map(
    results.testResults.flatMap((file) => file.assertionResults.map((test) => [`${relative(rootDir, file.name)} › ${test.fullName}`, test.status] as const)),
  );
}

/** Every difference between two runs of the same scenarios. */
export function compareRuns(input: {
  a: { records: KitRecord[]; results: JestResults; baseUrl: string };
  b: { records: KitRecord[]; results: JestResults; baseUrl: string };
  rootDir: string;
}): Pick<CompareReport, 'scenarios' | 'exchanges' | 'differences'> {
  const { rootDir } = input;
  const runA = byScenario(input.a.records, rootDir);
  const runB = byScenario(input.b.records, rootDir);
  const outcomeA = outcomes(input.a.results, rootDir);
  const outcomeB = outcomes(input.b.results, rootDir);
  const [originsA, originsB] = [originsOf(input.a.baseUrl), originsOf(input.b.baseUrl)];
  const differences: Difference[] = [];
  let compared = 0;
  let exchanges = 0;
  const names = [...new Set([...runA.keys(), ...runB.keys(), ...outcomeA.keys(), ...outcomeB.keys()])].sort();
  for (const name of names) {
    const a = sequence(runA.get(name) ?? []);
    const b = sequence(runB.get(name) ?? []);
    const codes = { a: new Set<string>(), b: new Set<string>() };
    for (const exchange of a) codesIn(parsed(exchange.body, originsA), codes.a);
    for (const exchange of b) codesIn(parsed(exchange.body, originsB), codes.b);
    const scenario = new Scenario(name, Math.min(...a.map((x) => x.at ?? 0)), Math.min(...b.map((x) => x.at ?? 0)), codes);
    const [resultA, resultB] = [outcomeA.get(name), outcomeB.get(name)];
    if (resultA !== resultB) scenario.differ('(scenario)', 'outcome', resultA ?? ABSENT, resultB ?? ABSENT);
    if (a.length === 0 || b.length === 0) {
      if (a.length + b.length > 0) scenario.differ('(scenario)', 'calls', a.length, b.length);
      differences.push(...scenario.differences);
      continue;
    }
    compared += 1;
    // The k-th call of an operation on one side meets the k-th call of it on the other; calls sent at once meet
    // their equals, since which of them wins a race is up to each server.
    const callsOfB = new Map<string, Exchange[]>();
    for (const exchange of b) callsOfB.set(operationOf(exchange), [...(callsOfB.get(operationOf(exchange)) ?? []), exchange]);
    const callsOfA = new Map<string, Exchange[]>();
    for (const exchange of a) callsOfA.set(operationOf(exchange), [...(callsOfA.get(operationOf(exchange)) ?? []), exchange]);
    const [bodiesA, bodiesB] = [new Map<Exchange, unknown>(), new Map<Exchange, unknown>()];
    for (const [operation, calls] of callsOfA) {
      const others = callsOfB.get(operation);
      if (!others) continue;
      callsOfB.set(operation, racedInOrder(scenario, calls, others, originsA, originsB));
      mergeWalks(calls, callsOfB.get(operation)!, originsA, originsB, bodiesA, bodiesB);
    }
    const met = new Map<string, number>();
    for (const exchange of a) {
      const operation = operationOf(exchange);
      const index = met.get(operation) ?? 0;
      met.set(operation, index + 1);
      const partner = callsOfB.get(operation)?.[index];
      if (!partner) continue;
      exchanges += 1;
      if (exchange.status !== partner.status) scenario.differ(operation, 'status', exchange.status, partner.status);
      scenario.cursorMadeUp = cursorMadeUp(exchange, partner);
      scenario.compare(operation, '$', bodiesA.get(exchange) ?? parsed(exchange.body, originsA), bodiesB.get(partner) ?? parsed(partner.body, originsB));
      scenario.cursorMadeUp = false;
    }
    const operations = new Set([...met.keys(), ...callsOfB.keys()]);
    for (const operation of [...operations].sort()) {
      const [countA, countB] = [met.get(operation) ?? 0, callsOfB.get(operation)?.length ?? 0];
      if (countA !== countB) scenario.differ(operation, 'calls', countA, countB);
    }
    differences.push(...scenario.differences);
  }
  const onlyA = [...runA.keys()].filter((name) => !runB.has(name)).length;
  const onlyB = [...runB.keys()].filter((name) => !runA.has(name)).length;
  return { scenarios: { compared, onlyA, onlyB }, exchanges: { compared: exchanges }, differences };
}

/**
 * Whether a GET asks for the page after a cursor (`starting_after_id`, `starting_after`) that the client made
 * up: the same non-empty literal on both sides, where an ID read from either server's answer would differ.
 */
function cursorMadeUp(a: Exchange, b: Exchange): boolean {
  if (a.method !== 'GET' || b.method !== 'GET') return false;
  const [urlA, urlB] = [new URL(a.url), new URL(b.url)];
  return [...urlA.searchParams].some(([name, value]) => /^starting_after/.test(name) && value !== '' && urlB.searchParams.get(name) === value);
}

/**
 * The key of the cursor in `previous`'s answer (`more_starting_after`) when `next` asks for the page after it:
 * the same GET with one query parameter set to that cursor's value, every other parameter unchanged.
 */
function cursorKey(previous: Exchange, next: Exchange, answer: unknown): string | undefined {
  if (previous.method !== 'GET' || next.method !== 'GET' || previous.status !== 200 || next.status !== 200 || !isObject(answer)) return undefined;
  const [before, after] = [new URL(previous.url), new URL(next.url)];
  if (before.pathname !== after.pathname) return undefined;
  for (const [name, value] of after.searchParams) {
    const key = Object.keys(answer).find((field) => answer[field] === value && value !== '');
    const others = (url: URL) => [...url.searchParams].filter(([other]) => other !== name).map(([other, text]) => `${other}=${text}`).sort().join('&');
    if (key !== undefined && others(before) === others(after)) return key;
  }
  return undefined;
}

/** One side's cursor walks among its calls of an operation: the first page's index and each next page's cursor key. */
function walksOf(calls: Exchange[], answers: unknown[]): Map<number, string[]> {
  const walks = new Map<number, string[]>();
  for (let start = 0; start < calls.length; ) {
    const keys: string[] = [];
    for (let at = start; at + 1 < calls.length; at++) {
      const key = Array.isArray(answers[at]) ? undefined : cursorKey(calls[at]!, calls[at + 1]!, answers[at]);
      if (key === undefined) break;
      keys.push(key);
    }
    if (keys.length > 0) walks.set(start, keys);
    start += keys.length + 1;
  }
  return walks;
}

/** A walk's pages as compared: its lists merged on the last page; each earlier page without the cursor it gave. */
function mergedPages(pages: unknown[], keys: string[]): unknown[] {
  const lists = Object.keys(pages.at(-1) as object).filter((field) => pages.every((page) => Array.isArray((page as Record<string, unknown>)[field])));
  return pages.map((page, index) => {
    const fields = { ...(page as Record<string, unknown>) };
    if (index === pages.length - 1) {
      for (const field of lists) fields[field] = pages.flatMap((each) => (each as Record<string, unknown[]>)[field]!);
      return fields;
    }
    for (const field of lists) fields[field] = `${(fields[field] as unknown[]).length} items`;
    delete fields[keys[index]!];
    return fields;
  });
}

/**
 * The cursor walks both sides made alike (from the same call, with as many pages and the same cursor keys),
 * each page's body as compared set in `bodiesA`/`bodiesB` (see mergedPages).
 */
function mergeWalks(a: Exchange[], b: Exchange[], originsA: string[], originsB: string[], bodiesA: Map<Exchange, unknown>, bodiesB: Map<Exchange, unknown>): void {
  const [answersA, answersB] = [a.map((exchange) => parsed(exchange.body, originsA)), b.map((exchange) => parsed(exchange.body, originsB))];
  const walksB = walksOf(b, answersB);
  for (const [start, keys] of walksOf(a, answersA)) {
    if (walksB.get(start)?.join() !== keys.join()) continue;
    const end = start + keys.length + 1;
    mergedPages(answersA.slice(start, end), keys).forEach((body, index) => bodiesA.set(a[start + index]!, body));
    mergedPages(answersB.slice(start, end), keys).forEach((body, index) => bodiesB.set(b[start + index]!, body));
  }
}

/** Runs of calls of one operation each sent before the answer to the one before it came: sent at once. */
function races(calls: Exchange[]): [number, number][] {
  const runs: [number, number][] = [];
  let start = 0;
  for (let index = 1; index <= calls.length; index++) {
    const call = calls[index];
    const raced = call && call.sent !== undefined && call.sent < (calls[index - 1]!.at ?? 0);
    if (raced) continue;
    if (index - start > 1) runs.push([start, index]);
    start = index;
  }
  return runs;
}

/** B's calls of an operation, those that raced on A's side reordered to meet A's their equals. */
function racedInOrder(scenario: Scenario, a: Exchange[], b: Exchange[], originsA: string[], originsB: string[]): Exchange[] {
  const ordered = [...b];
  const answer = (exchange: Exchange, origins: string[]) => ({ status: exchange.status, body: parsed(exchange.body, origins) });
  for (const [from, to] of races(a)) {
    const theirs = b.slice(from, to);
    if (theirs.length !== to - from) continue;
    const order = scenario.matchedAsSet(
      a.slice(from, to).map((exchange) => answer(exchange, originsA)),
      theirs.map((exchange) => answer(exchange, originsB)),
    );
    order.forEach((index, offset) => (ordered[from + offset] = theirs[index]!));
  }
  return ordered;
}

/** A value as one line shows it: JSON, cut short. */
function shown(value: unknown): string {
  const text = value === ABSENT ? ABSENT : JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

/** One line per difference: the operation, where, and each side's value. */
export function formatDifferences(differences: Difference[]): string {
  return differences.map((difference) => `${difference.operation}  ${difference.path}  A: ${shown(difference.a)}  B: ${shown(difference.b)}`).join('\n');
}
