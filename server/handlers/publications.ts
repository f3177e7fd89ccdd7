import { listPublications, publish } from '../domain/publications.js';
import { presentVoucher } from '../domain/vouchers.js';
import type { HandlersOf } from './types.js';
import { inProject } from './unit-of-work.js';
import { withAssets } from './vouchers.js';

export const publicationHandlers: HandlersOf<'list-publications' | 'create-publication'> = {
  'list-publications': async ({ query, context, services }) => {
    const page = await inProject(services, context, (ctx) => listPublications(ctx, query));
    return { status: 200, body: { object: 'list', data_ref: 'publications', publications: page.rows, total: page.total } };
  },
  'create-publication': async ({ body, context, services }) => {
    const outcome = await inProject(services, context, async (ctx) => {
      const made = await publish(ctx, body);
      return made.ok ? { ...made, view: await presentVoucher(ctx, made.voucher) } : made;
    });
    if (!outcome.ok) throw outcome.error;
    const { publication, view: voucher } = outcome;
    return { status: 200, body: { ...publication, voucher: withAssets(services, context, voucher) } };
  },
};
