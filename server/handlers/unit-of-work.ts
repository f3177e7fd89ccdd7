import type { DomainContext } from '../domain/context.js';
import type { RequestContext, Services } from './types.js';

/** Runs a use case in one unit of work on the caller's project. */
export function inProject<R>(
  services: Services,
  context: RequestContext,
  work: (ctx: DomainContext) => Promise<R>,
): Promise<R> {
  return services.store.transaction(context.projectId, (uow) => work({ uow, clock: services.clock }));
}
