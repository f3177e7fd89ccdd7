import { listPublications, presentPublication, publish, type PublicationListQuery } from '../domain/publications.js';
import { presentVoucher } from '../domain/vouchers.js';
import type { HandlersOf } from './types.js';
import { inProject } from './unit-of-work.js';
import { withAssets } from './vouchers.js';
import { FRESH } from '../store/fresh.js';

export const publicationHandlers: HandlersOf<'list-publications' | 'create-publication'> = {
  'list-publications': async ({ query, context, services }) => {
    const page = await inProject(services, context, async (ctx) => {
      const listed = await listPublications(ctx, query as PublicationListQuery);
      const rows = [];
      for (const record of listed.rows) {
        const voucher = await ctx.uow.vouchers.getBy('code', record.voucher_code);
        rows.push({
          ...FRESH,
          ...(await presentPublication(ctx, record)),
          // The list shows a short form of the voucher: its code, campaign and value.
          ...(voucher && {
            voucher: {
              code: voucher.code,
              object: 'voucher' as const,
              campaign: voucher.campaign_id ? ((await ctx.uow.campaigns.get(voucher.campaign_id))?.name ?? null) : null,
              discount: voucher.discount,
              gift: voucher.gift,
              loyalty_card: voucher.loyalty_card,
              is_referral_code: voucher.is_referral_code,
            },
          }),
        });
      }
      return { rows, total: listed.total };
    });
    return { status: 200, body: { object: 'list', data_ref: 'publications', publications: page.rows, total: page.total } };
  },
  'create-publication': async ({ query, body, context, services }) => {
    // A publication runs optimistically: it locks its customer (see publish) and changes the vouchers it gives,
    // whose versions keep two publications from giving one voucher. One with a source_id holds the project: that
    // ID may be another customer's, whose publications the lock does not hold back.
    const optimistic = body.source_id === undefined || body.source_id === null;
    const outcome = await inProject(services, context, async (ctx) => {
      const made = await publish(ctx, body, { joinOnce: query.join_once === true });
      if (!made.ok) return made;
      // One voucher is shown in full; several are listed by code in the publication's `vouchers`.
      const single = made.vouchers.length === 1 ? await presentVoucher(ctx, made.vouchers[0]!) : undefined;
      return { ...FRESH, ...made, view: await presentPublication(ctx, made.publication), single };
    }, { optimistic });
    if (!outcome.ok) throw outcome.error;
    const { view, single } = outcome;
    return { status: 200, body: { ...FRESH, ...view, ...(single && { voucher: withAssets(services, context, single) }) } };
  },
};
