import type { DomainContext } from '../domain/context.js';
import { invalid } from '../domain/errors.js';
import {
  changeBalance,
  createVoucher,
  deleteVoucher,
  findVoucher,
  listVouchers,
  presentVoucher,
  setVoucherActive,
  updateVoucher,
  type VoucherRecord,
  type VoucherView,
} from '../domain/vouchers.js';
import type { HandlersOf, RequestContext, Services } from './types.js';
import { inProject } from './unit-of-work.js';
import { FRESH } from '../store/fresh.js';

type VoucherOperations =
  | 'list-vouchers'
  | 'generate-random-code'
  | 'get-voucher'
  | 'create-voucher'
  | 'update-voucher'
  | 'delete-voucher'
  | 'enable-voucher'
  | 'disable-voucher'
  | 'update-voucher-balance';

/** Adds the asset URLs, under the configured public base URL, to a view made for this response. */
export function withAssets(services: Services, context: RequestContext, voucher: VoucherView) {
  return Object.assign(voucher, { assets: services.assets.assets(context.projectId, voucher.code, services.publicBaseUrl()) });
}

/** A body may repeat the path's code (clients that send a whole voucher do); another code is refused. */
function withoutCode<B extends { code?: string }>(pathCode: string, body: B): Omit<B, 'code'> {
  const { code, ...rest } = body;
  if (code !== undefined && code !== pathCode) {
    throw invalid('invalid_voucher', 'Invalid voucher', `The body's code '${code}' is not the code in the path, '${pathCode}'`);
  }
  return rest;
}

/** Runs a voucher use case and returns the voucher as the contract shows it. */
export async function voucherResponse(
  services: Services,
  context: RequestContext,
  work: (ctx: DomainContext) => Promise<VoucherRecord>,
  options: { optimistic?: boolean } = {},
) {
  const view = await inProject(services, context, async (ctx) => presentVoucher(ctx, await work(ctx)), options);
  return { status: 200 as const, body: withAssets(services, context, view) };
}

export const voucherHandlers: HandlersOf<VoucherOperations> = {
  'list-vouchers': async ({ query, context, services }) => {
    const page = await inProject(services, context, (ctx) => listVouchers(ctx, query as never));
    return {
      status: 200,
      body: {
        object: 'list',
        data_ref: 'vouchers',
        vouchers: page.rows.map((voucher) => withAssets(services, context, voucher)),
        total: page.total,
      },
    };
  },
  // A voucher's creation runs optimistically: it reads its campaign, rules and the bin, which only units of work
  // that hold the project alone change, inserts the voucher (its code's unique index refuses a code taken
  // meanwhile, and the creation then runs as a transaction, which answers 409) and its rule assignments.
  'generate-random-code': ({ body, context, services }) => voucherResponse(services, context, (ctx) => createVoucher(ctx, body), { optimistic: true }),
  'create-voucher': ({ path, body, context, services }) =>
    voucherResponse(services, context, (ctx) => createVoucher(ctx, { ...FRESH, ...withoutCode(path.code, body), code: path.code }), { optimistic: true }),
  'get-voucher': ({ path, context, services }) => voucherResponse(services, context, (ctx) => findVoucher(ctx, path.code)),
  // A voucher's own changes run optimistically: they change the voucher's row and record an event.
  'update-voucher': ({ path, body, context, services }) =>
    voucherResponse(services, context, (ctx) => updateVoucher(ctx, path.code, withoutCode(path.code, body)), { optimistic: true }),
  'enable-voucher': ({ path, context, services }) => voucherResponse(services, context, (ctx) => setVoucherActive(ctx, path.code, true), { optimistic: true }),
  'disable-voucher': ({ path, context, services }) =>
    voucherResponse(services, context, (ctx) => setVoucherActive(ctx, path.code, false), { optimistic: true }),
  'delete-voucher': async ({ path, query, context, services }) => {
    await inProject(services, context, (ctx) => deleteVoucher(ctx, path.code, { force: query.force }));
    return { status: 204 };
  },
  'update-voucher-balance': async ({ path, body, context, services }) => ({
    status: 200,
    body: await inProject(services, context, (ctx) => changeBalance(ctx, path.code, body), { optimistic: true }),
  }),
};
