import type { DomainContext } from '../domain/context.js';
import type { DomainUnitOfWork } from '../domain/schema.js';
import { notFound } from '../domain/errors.js';
import { newId } from '../domain/ids.js';
import { settleLoyalty } from '../domain/loyalty/settle.js';
import { ORGANIZATION } from '../domain/management/projects.js';
import { HttpError } from '../http/errors.js';
import { readFirst, UnknownProject } from '../store/store.js';
import type { RequestContext, Services } from './types.js';

/**
 * Runs a use case in one unit of work on the caller's project. A request that only asks to read (a GET) begins
 * as a read, which a store may run beside the project's writers (PostgreSQL does), and runs again as a
 * transaction if it turns out to write (settling loyalty points that fell due on the way, say).
 */
export function inProject<R>(
  services: Services,
  context: RequestContext,
  work: (ctx: DomainContext) => Promise<R>,
): Promise<R> {
  const source = { channel: 'API' as const, api_key: { name: context.apiKey.name, app_id: context.apiKey.appId } };
  const unit = async (uow: DomainUnitOfWork) => {
    const ctx = { uow, clock: services.clock, source, groupId: newId('grp') };
    await settleLoyalty(ctx);
    return work(ctx);
  };
  return (context.reads ? readFirst(services.store, context.projectId, unit) : services.store.transaction(context.projectId, unit))
    .catch((error: unknown) => {
      // The key was known a moment ago (authentication keeps keys found for a few seconds), but its project has
      // since been deleted, on this instance or another: the key opens nothing any more.
      if (!(error instanceof UnknownProject)) throw error;
      services.keysChanged?.();
      throw new HttpError(401, 'unauthorized', 'Unauthorized', 'The project of this key no longer exists');
    });
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
    return await services.store.transaction(projectId, (uow) => work({ uow, clock: services.clock }));
  } catch (error) {
    if (error instanceof UnknownProject) throw notFound('project', projectId);
    throw error;
  }
}
