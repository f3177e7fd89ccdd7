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
 * - a list sorted on both sides by ID, by code or by when its items were made is compared as a set: each item
 *   must meet an equal one, in whatever order (IDs and codes are random, and items made in the same
 *   millisecond have no order among them).
 * What normalisation cannot make comparable is reported: a list paged by a cursor in ID order, say, puts other
 * items on each side's first page.
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
const MINUTE = 60_000;
const DAY = 86_400_000;

/** A word a server or the suite generates: long enough and with a digit in it, or a run of hex digits. */
function generated(word: string): boolean {
  if (word.split(/[-_]/).some((part) => /^[0-9a-f]{8,}$/.test(part))) return true;
  if (word.length < 6) return false;
  // A code made from a pattern with a prefix or suffix (`C-HNBGD`) may hold no digit; enumerations join with `_`.
  return /\d/.test(word) || /^[A-Z0-9]+(?:-[A-Z0-9]+)+$/.test(word) || (word.length >= 8 && /[a-z]/.test(word) && /[A-Z]/.test(word));
}

/** An ID's prefix (`vch_` of `vch_0a9f…`, `track_` of a tracking ID), which both sides must agree on. */
const prefixOf = (word: string) => /^[a-z]+_/.exec(word)?.[0] ?? '';

/** One scenario's comparison: the pairs of generated words met so far, and when each run of it started. */
class Scenario {
  private readonly aToB = new Map<string, string>();
  private readonly bToA = new Map<string, string>();
  readonly differences: Difference[] = [];

  constructor(
    private readonly name: string,
    private readonly startA: number,
    private readonly startB: number,
  ) {}

  differ(operation: string, path: string, a: unknown, b: unknown): void {
    this.differences.push({ scenario: this.name, operation, path, a, b });
  }

  /** Whether two words are the same generated value: paired before, or both new and pairable now. */
  private sameWord(a: string, b: string): boolean {
    if (a === b && !this.aToB.has(a) && !this.bToA.has(b)) return true;
    const partner = this.aToB.get(a);
    if (partner !== undefined || this.bToA.has(b)) return partner === b;
    if (!generated(a) || !generated(b) || a.length !== b.length || prefixOf(a) !== prefixOf(b)) return false;
    this.aToB.set(a, b);
    this.bToA.set(b, a);
    return true;
  }

  private sameTime(a: string, b: string): boolean {
    const [ta, tb] = [Date.parse(a), Date.parse(b)];
    if (Number.isNaN(ta) || Number.isNaN(tb)) return false;
    // Made before the scenario began on both sides (an object of an earlier scenario, read in a list): each
    // side's earlier scenarios took their own time, so only that both are in the past counts.
    if (ta < this.startA && tb < this.startB && !DATE.test(a)) return true;
    return Math.abs(ta - this.startA - (tb - this.startB)) <= (DATE.test(a) ? DAY : MINUTE);
  }

  private sameText(a: string, b: string): boolean {
    if (a === b) return true;
    if ((DATE_TIME.test(a) && DATE_TIME.test(b)) || (DATE.test(a) && DATE.test(b))) return this.sameTime(a, b);
    const wordsA = a.match(TOKENS) ?? [];
    const wordsB = b.match(TOKENS) ?? [];
    if (wordsA.length !== wordsB.length || a.split(TOKENS).join('\u0000') !== b.split(TOKENS).join('\u0000')) return false;
    return wordsA.every((word, index) => {
      const other = wordsB[index]!;
      if (word === other) return true;
      if (DATE_TIME.test(word) && DATE_TIME.test(other)) return this.sameTime(word, other);
      return this.sameWord(word, other);
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
    if (!Object.is(a, b)) this.differ(operation, path, a, b);
  }
}

/**
 * The orders in which items may differ by nature: by ID or code, which each server generates, and by when the
 * items were made, where items made in the same millisecond may come in either order (the memory store keeps
 * the order they were made in; PostgreSQL promises none among equals).
 */
const GENERATED_ORDERS = [['id'], ['code'], ['created_at']];
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
    const scenario = new Scenario(name, Math.min(...a.map((x) => x.at ?? 0)), Math.min(...b.map((x) => x.at ?? 0)));
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
    for (const [operation, calls] of callsOfA) {
      const others = callsOfB.get(operation);
      if (others) callsOfB.set(operation, racedInOrder(scenario, calls, others, originsA, originsB));
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
      scenario.compare(operation, '$', parsed(exchange.body, originsA), parsed(partner.body, originsB));
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
