import type { DomainContext, EventSource } from '../domain/context.js';
import type { DomainUnitOfWork } from '../domain/schema.js';
import { notFound } from '../domain/errors.js';
import { newId } from '../domain/ids.js';
import { settleLoyalty } from '../domain/loyalty/settle.js';
import { ORGANIZATION } from '../domain/management/projects.js';
import { HttpError } from '../http/errors.js';
import { projectClock } from '../domain/test-clock.js';
import { appendFirst, optimisticFirst, readFirst, UnknownProject } from '../store/store.js';
import type { Clock } from '../domain/clock.js';
import type { RequestContext, Services } from './types.js';

/** Sources kept at most; past that they are dropped and made again. */
const SOURCES_AT_MOST = 1000;
/** The frozen event source of each API key (by app ID) that called lately. */
const sources = new Map<string, EventSource>();

/**
 * The event source of calls with this key, frozen and made once per key: events share a frozen source as it
 * is (domain/events.ts), where a source made anew for each request was written out as JSON to find the shared
 * copy, a few µs of each request that records an event (`make bench`). A renamed key gets a new one.
 */
export function apiSource(apiKey: RequestContext['apiKey']): EventSource {
  const kept = sources.get(apiKey.appId);
  if (kept?.api_key?.name === apiKey.name) return kept;
  if (sources.size >= SOURCES_AT_MOST) sources.clear();
  const source: EventSource = Object.freeze({ channel: 'API' as const, api_key: Object.freeze({ name: apiKey.name, app_id: apiKey.appId }) });
  sources.set(apiKey.appId, source);
  return source;
}

/** The clock of the project a unit of work is on: its test clock's frozen time while frozen (when test clocks are on). */
function clockOf(services: Services, uow: DomainUnitOfWork): Clock | Promise<Clock> {
  return services.testClocks ? projectClock(uow, services.clock) : services.clock;
}

/**
 * Runs a use case in one unit of work on the caller's project. A request that only asks to read (a GET) begins
 * as a read, which a store may run beside the project's writers (PostgreSQL does), and runs again as a
 * transaction if it turns out to write (settling loyalty points that fell due on the way, say). A use case
 * that usually only adds rows (`appends`: making a customer) begins as an append, which a store may run beside
 * the project's other appends, and runs again as a transaction if it turns out to change a row or meet a
 * taken value (an existing customer's source ID, points for entering a segment). One that changes a few rows it
 * reads, and whose every limit is kept on a row it changes (`optimistic`: a redemption keeps its voucher's or
 * tier's counts, a card's balance, the customer's summary), begins as optimistic, which a store may run beside
 * the project's other such units of work, and runs again (at last as a transaction) when a row it changed was
 * changed by another meanwhile.
 */
export function inProject<R>(
  services: Services,
  context: RequestContext,
  work: (ctx: DomainContext) => Promise<R>,
  { appends = false, optimistic = false }: { appends?: boolean; optimistic?: boolean } = {},
): Promise<R> {
  const source = apiSource(context.apiKey);
  const unit = async (uow: DomainUnitOfWork) => {
    const ctx = { uow, clock: await clockOf(services, uow), source, groupId: newId('grp'), ...(context.channel && { channel: context.channel }) };
    await settleLoyalty(ctx);
    return work(ctx);
  };
  const running = context.reads
    ? readFirst(services.store, context.projectId, unit)
    : appends
      ? appendFirst(services.store, context.projectId, unit)
      : optimistic
        ? optimisticFirst(services.store, context.projectId, unit)
        : services.store.transaction(context.projectId, unit);
  return running
    .catch((error: unknown) => {
      // The key was known a moment ago (authentication keeps keys found for a few seconds), but its project has
      // since been deleted, on this instance or another: the key opens nothing any more.
      if (!(error instanceof UnknownProject)) throw error;
      services.keysChanged?.();
      throw new HttpError(401, 'unauthorized', 'Unauthorized', 'The project of this key no longer exists');
    });
}

/**
 * The clock a project's background work (an export, an import, a campaign's deletion) stamps with: its test
 * clock's time when the work starts, while frozen (when test clocks are on); the server's clock otherwise.
 */
export async function jobClock(services: Services, projectId: string): Promise<Clock> {
  return services.testClocks ? services.store.read(projectId, (uow) => projectClock(uow, services.clock)) : services.clock;
}

/** Runs a management use case in one unit of work on the organization (projects, keys, users). */
export function inOrganization<R>(services: Services, work: (ctx: DomainContext) => Promise<R>): Promise<R> {
  return services.store.transaction(ORGANIZATION, (uow) => work({ uow, clock: services.clock }));
}

/** Runs a management use case in one unit of work on the project named in the path; 404 when there is none. */
export async function inManagedProject<R>(services: Services, projectId: string, work: (ctx: DomainContext) => Promise<R>): Promise<R> {
  const known = await inOrganization(services, async ({ uow }) => (await uow.projects.get(projectId)) !== undefined);
  if (!known) throw notFound('project', projectId);
  try {
    return await services.store.transaction(projectId, async (uow) => work({ uow, clock: await clockOf(services, uow) }));
  } catch (error) {
    if (error instanceof UnknownProject) throw notFound('project', projectId);
    throw error;
  }
}
