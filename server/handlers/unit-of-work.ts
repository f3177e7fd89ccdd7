import type { DomainContext } from '../domain/context.js';
import { newId } from '../domain/ids.js';
import { settleLoyalty } from '../domain/loyalty/settle.js';
import type { RequestContext, Services } from './types.js';

/** Runs a use case in one unit of work on the caller's project. */
export function inProject<R>(
  services: Services,
  context: RequestContext,
  work: (ctx: DomainContext) => Promise<R>,
): Promise<R> {
  const source = { channel: 'API' as const, api_key: { name: context.apiKey.name, app_id: context.apiKey.appId } };
  return services.store.transaction(context.projectId, async (uow) => {
    const ctx = { uow, clock: services.clock, source, groupId: newId('grp') };
    await settleLoyalty(ctx);
    return work(ctx);
  });
}
