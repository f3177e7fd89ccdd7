/**
 * The kit's checks of the target before any scenario runs: something answers at the base URL, as this API;
 * every key given is accepted; no limit on failed authentications would answer the suite's wrong keys 429; and, when the selected areas read them, the objects of the contract fixture
 * file are in the first project. Each problem is one paragraph naming what to change, in place of hundreds
 * of scenarios failing with connection errors, 401s or bare `toMatchObject` diffs.
 */
import { readFileSync } from 'node:fs';

export interface PreflightTarget {
  baseUrl: string;
  app: { appId: string; appToken: string };
  other?: { appId: string; appToken: string };
  management?: { id: string; token: string };
  client?: { appId: string; token: string; origin: string };
  projectId?: string;
  /** The contract fixture file, when the selected areas (named) read its objects. */
  fixtures?: { file: string; areas: string[] };
}

const TIMEOUT_MS = 10_000;
const STOPPED = 'No scenario ran (exit 2).';

interface Answer {
  status: number;
  contentType: string;
  body: unknown;
  text: string;
  headers: Headers;
}

/** One request; a network failure comes back as the paragraph that explains it. */
async function ask(baseUrl: string, path: string, headers: Record<string, string>): Promise<Answer | { problem: string }> {
  let response: Response;
  try {
    response = await fetch(`${baseUrl}${path}`, { headers, signal: AbortSignal.timeout(TIMEOUT_MS), redirect: 'manual' });
  } catch (error) {
    return { problem: unreachable(baseUrl, error) };
  }
  const text = await response.text().catch(() => '');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: response.status, contentType: response.headers.get('content-type') ?? '', body, text, headers: response.headers };
}

function unreachable(baseUrl: string, error: unknown): string {
  const { host } = new URL(baseUrl);
  const failure = error as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = failure.cause?.code ?? failure.name ?? 'error';
  if (failure.name === 'TimeoutError') {
    return `Nothing answers at ${baseUrl}: ${host} took the connection but sent no HTTP answer within ${TIMEOUT_MS / 1000} s. Check that --base-url names the server under test (scheme, host and port). ${STOPPED}`;
  }
  if (code === 'ECONNREFUSED') {
    return (
      `Nothing answers at ${baseUrl}: the connection to ${host} was refused, so no server listens there. Start the server under test ` +
      `and check its output (it stops at once when its port is already taken), or point --base-url at where it listens. ${STOPPED}`
    );
  }
  if (failure.cause?.message === 'bad port') {
    return `Nothing can be asked at ${baseUrl}: fetch never connects to port ${new URL(baseUrl).port}, one of the ports the Fetch standard blocks. Run the server under test on another port. ${STOPPED}`;
  }
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return `Nothing answers at ${baseUrl}: the host name does not resolve (${code}). Check --base-url. ${STOPPED}`;
  }
  return (
    `Nothing answers at ${baseUrl} as an HTTP server: something takes connections on ${host} but the exchange failed ` +
    `(${code}: ${failure.cause?.message ?? failure.message}). Check --base-url's scheme and port: another kind of server may hold that port. ${STOPPED}`
  );
}

const isApiError = (body: unknown): body is { code: number; key: string; message: string } =>
  typeof body === 'object' && body !== null && typeof (body as { code?: unknown }).code === 'number' && typeof (body as { key?: unknown }).key === 'string';

/** What came back, briefly: status, media type, and the start of the body. */
function described(answer: Answer): string {
  if (isApiError(answer.body)) return `${answer.status} ${answer.body.key}: ${answer.body.message}`;
  const start = answer.text.replace(/\s+/g, ' ').trim().slice(0, 80);
  return `${answer.status} ${answer.contentType || 'without a Content-Type'}${start ? ` "${start}${answer.text.length > 80 ? '…' : ''}"` : ', empty'}`;
}

const appHeaders = (key: { appId: string; appToken: string }) => ({ 'X-App-Id': key.appId, 'X-App-Token': key.appToken });
const LIST_PROBE = '/v1/customers?limit=1';

/**
 * The suite sends wrong keys on purpose (each operation's authentication checks, the fuzzing's broken
 * requests): several hundred from one address in a run, many within a minute. A limit on failed
 * authentications below this many a minute answers most of the later scenarios 429.
 */
export const FAILED_AUTHENTICATIONS_NEEDED = 1000;

/** What to set, said once for both ways of meeting the limit. */
const LIFT_THE_LIMIT =
  `The suite sends wrong keys on purpose, several hundred from this address in a run, and a server that limits them answers ` +
  `most of its scenarios 429. Lift the limit for the kit's address: start the reference server with AUTH_FAILURES_PER_MINUTE=0 ` +
  `(AUTH_FAILURES_PER_MINUTE=0 node dist/server/main.js --fixtures tests/fixtures/contract.json); for your own server, turn its ` +
  `equivalent off for this address (or allow at least ${FAILED_AUTHENTICATIONS_NEEDED} failed authentications a minute).`;

/** The rate-limit headers of an answer, as `Name: value` (the IETF drafts' and the common X- form). */
function limitHeaders(headers: Headers): string[] {
  return ['RateLimit-Policy', 'RateLimit', 'RateLimit-Limit', 'X-RateLimit-Limit', 'Retry-After'].flatMap((name) => {
    const value = headers.get(name);
    return value === null ? [] : [`${name}: ${value}`];
  });
}

/** The quota a limit header states (`q=50` of the IETF drafts, or a bare number), when it states one. */
function quotaOf(header: string): number | undefined {
  const value = header.slice(header.indexOf(':') + 1).trim();
  const quota = /(?:^|;)\s*q=(\d+)/.exec(value)?.[1] ?? /^(\d+)(?:\s*(?:;|,|$))/.exec(value)?.[1];
  return quota === undefined ? undefined : Number(quota);
}

/** A 429 where the kit has sent almost nothing: the address is over a limit already (an earlier run, say). */
function overALimit(target: PreflightTarget, path: string, answer: Answer): string | undefined {
  if (answer.status !== 429) return undefined;
  const retry = answer.headers.get('retry-after');
  const details = (answer.body as { details?: unknown } | undefined)?.details;
  return (
    `The server at ${target.baseUrl} answered 429 to the kit's first requests (GET ${path} gave ${described(answer)}` +
    `${typeof details === 'string' && details ? ` (${details})` : ''}` +
    `${retry ? `; Retry-After ${retry} s` : ''}): this address is over one of its rate limits already, as after an earlier run ` +
    `that sent many wrong keys. ${LIFT_THE_LIMIT} ${STOPPED}`
  );
}

/**
 * Whether the server limits failed authentications from one address below what the suite sends: one request
 * with a wrong token, whose 401 carries the limit's headers (RateLimit-Policy and RateLimit, or X-RateLimit-Limit)
 * where the right key's answer does not. A server that limits without saying so is not detected here.
 */
async function limitsFailedAuthentications(target: PreflightTarget, accepted: Answer): Promise<string | undefined> {
  const answer = await ask(target.baseUrl, LIST_PROBE, { 'X-App-Id': target.app.appId, 'X-App-Token': 'contract-kit-preflight-wrong-token' });
  if ('problem' in answer) return answer.problem;
  const limited = overALimit(target, LIST_PROBE, answer);
  if (limited) return limited;
  const always = new Set(limitHeaders(accepted.headers).map((header) => header.split(':')[0]));
  // Retry-After alone on a 401 says nothing of a limit; the limit headers the right key also gets are a limit on all requests.
  const onFailure = limitHeaders(answer.headers).filter((header) => !header.startsWith('Retry-After') && !always.has(header.split(':')[0]));
  if (onFailure.length === 0) return undefined;
  const quotas = onFailure.map(quotaOf).filter((quota): quota is number => quota !== undefined);
  if (quotas.length > 0 && Math.min(...quotas) >= FAILED_AUTHENTICATIONS_NEEDED) return undefined;
  return (
    `The server at ${target.baseUrl} limits failed authentications: its ${answer.status} to a wrong key (GET ${LIST_PROBE} with ` +
    `X-App-Id ${target.app.appId} and a wrong token) carries ${onFailure.join(', ')}, which the right key's answer does not. ` +
    `${LIFT_THE_LIMIT} ${STOPPED}`
  );
}

/** Something answers at the base URL, as this API: the first key lists customers, or is refused in the API's error shape. */
async function answersAsThisApi(target: PreflightTarget): Promise<string | undefined> {
  const answer = await ask(target.baseUrl, LIST_PROBE, appHeaders(target.app));
  if ('problem' in answer) return answer.problem;
  const limited = overALimit(target, LIST_PROBE, answer);
  if (limited) return limited;
  const listed = answer.status === 200 && (answer.body as { object?: unknown } | undefined)?.object === 'list';
  if (listed || (answer.status === 401 && isApiError(answer.body))) return undefined;
  return (
    `Something answers at ${target.baseUrl}, but not as this API: GET ${LIST_PROBE} with the server-side key gave ${described(answer)}, ` +
    `where the API answers 200 with a list (or 401 in its error shape to a wrong key). Check --base-url (host, port and any path prefix); ` +
    `when the server under test could not take its port because another process holds it, that other process is what answers here. ${STOPPED}`
  );
}

interface KeyCheck {
  name: string;
  flags: string;
  path: string;
  headers: Record<string, string>;
  shown: string;
  /** Asked with the key of the check before it, so not asked when that key was refused. */
  withPrevious?: boolean;
}

function keyChecks(target: PreflightTarget): KeyCheck[] {
  const checks: KeyCheck[] = [
    { name: 'the server-side key', flags: '--app-id and --app-token', path: LIST_PROBE, headers: appHeaders(target.app), shown: `X-App-Id ${target.app.appId}` },
  ];
  if (target.other) {
    const { other } = target;
    checks.push({ name: "the second project's key", flags: '--other-app-id and --other-app-token', path: LIST_PROBE, headers: appHeaders(other), shown: `X-App-Id ${other.appId}` });
  }
  if (target.management) {
    const { id, token } = target.management;
    const headers = { 'X-Management-Id': id, 'X-Management-Token': token };
    checks.push({ name: 'the management key', flags: '--management-id and --management-token', path: '/management/v1/projects', headers, shown: `X-Management-Id ${id}` });
    if (target.projectId) {
      const path = `/management/v1/projects/${encodeURIComponent(target.projectId)}`;
      checks.push({ name: "the first project's ID", flags: '--project-id', path, headers, shown: target.projectId, withPrevious: true });
    }
  }
  if (target.client) {
    const { appId, token, origin } = target.client;
    const headers = { 'X-Client-Application-Id': appId, 'X-Client-Token': token, Origin: origin };
    checks.push({ name: 'the client-side key', flags: '--client-app-id, --client-token and --client-origin', path: '/client/v1/promotions/tiers?limit=1', headers, shown: `X-Client-Application-Id ${appId} from ${origin}` });
  }
  return checks;
}

/** Every key given is accepted where it belongs. */
async function keysAccepted(target: PreflightTarget): Promise<string[]> {
  const problems: string[] = [];
  let previousFailed = false;
  for (const check of keyChecks(target)) {
    if (check.withPrevious && previousFailed) continue;
    const answer = await ask(target.baseUrl, check.path, check.headers);
    if ('problem' in answer) return [answer.problem];
    previousFailed = answer.status !== 200;
    if (!previousFailed) continue;
    const verdict = answer.status === 401 || answer.status === 403 ? 'refused' : answer.status === 404 ? 'does not know' : 'did not take';
    problems.push(
      `The server at ${target.baseUrl} ${verdict} ${check.name} (${check.shown}): GET ${check.path} gave ${described(answer)}. ` +
        `Give the right one with ${check.flags}. ${STOPPED}`,
    );
  }
  return problems;
}

/** How the kit reads back each kind of object the fixture file holds. */
const FIXTURE_LOOKUPS: Record<string, { noun: string; path: (entry: Record<string, unknown>) => string | undefined }> = {
  locations: { noun: 'location', path: (entry) => (typeof entry.id === 'string' ? `/v1/locations/${entry.id}` : undefined) },
  products: { noun: 'product', path: (entry) => (typeof entry.id === 'string' ? `/v1/products/${entry.id}` : undefined) },
  customers: { noun: 'customer', path: (entry) => (typeof entry.source_id === 'string' ? `/v1/customers/${entry.source_id}` : undefined) },
};

/** The objects of the fixture file are in the first project. */
async function fixturesLoaded(target: PreflightTarget, { file, areas }: { file: string; areas: string[] }): Promise<string | undefined> {
  const sections = JSON.parse(readFileSync(file, 'utf8')) as Record<string, Record<string, unknown>[]>;
  const wanted = Object.entries(sections).flatMap(([section, entries]) =>
    entries.flatMap((entry) => {
      const lookup = FIXTURE_LOOKUPS[section];
      const path = lookup?.path(entry);
      return lookup && path ? [{ what: `${lookup.noun} ${path.split('/').at(-1)}`, path }] : [];
    }),
  );
  const answers = await Promise.all(wanted.map((object) => ask(target.baseUrl, object.path, appHeaders(target.app))));
  const missing = wanted.filter((_object, index) => {
    const answer = answers[index]!;
    return 'problem' in answer || answer.status !== 200;
  });
  if (missing.length === 0) return undefined;
  const named = missing.slice(0, 3).map((object) => object.what).join(', ');
  return (
    `The server at ${target.baseUrl} lacks ${missing.length} of the ${wanted.length} objects the contract suite expects in the project of ` +
    `--app-id ${target.app.appId} (${named}${missing.length > 3 ? ', …' : ''}). Load ${file} into that project: the reference server ` +
    `takes it at start (node dist/server/main.js --fixtures ${file}); for your own server, create those objects (locations have no ` +
    `create operation in the API, so load them as your server allows). Or leave out the areas that read them (--skip ${areas.join(',')}). ${STOPPED}`
  );
}

/** What stops the run, one paragraph each; empty when the target is ready. */
export async function preflight(target: PreflightTarget): Promise<string[]> {
  const answering = await answersAsThisApi(target);
  if (answering) return [answering];
  const keys = await keysAccepted(target);
  if (keys.length > 0) return keys;
  // Asked once the right key is known to work, so its answer is the one to compare the wrong key's with.
  const accepted = await ask(target.baseUrl, LIST_PROBE, appHeaders(target.app));
  if ('problem' in accepted) return [accepted.problem];
  const limit = await limitsFailedAuthentications(target, accepted);
  if (limit) return [limit];
  const fixtures = target.fixtures && (await fixturesLoaded(target, target.fixtures));
  return fixtures ? [fixtures] : [];
}
