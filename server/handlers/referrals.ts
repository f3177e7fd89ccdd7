import { addHolders, listHolders, removeHolder } from '../domain/referrals.js';
import type { Handler, HandlersOf } from './types.js';
import { inProject } from './unit-of-work.js';

type ReferralOperations =
  | 'referrals-code-holders'
  | 'referrals-code-holders-1'
  | 'referrals-add-holders'
  | 'referrals-add-holders-1'
  | 'referrals-remove-holder'
  | 'referrals-remove-holder-1';

/** Operations that exist both with and without the program in the path share one handler. */
type CodePath = { memberId: string; campaignId?: string };

const list: Handler<'referrals-code-holders'> & Handler<'referrals-code-holders-1'> = async ({ path, query, context, services }) => {
  const { memberId, campaignId } = path as CodePath;
  const page = await inProject(services, context, (ctx) => listHolders(ctx, memberId, campaignId, query));
  return {
    status: 200,
    body: {
      object: 'list',
      data_ref: 'data',
      data: page.rows,
      total: page.total,
      has_more: page.has_more,
      ...(page.more_starting_after !== undefined && { more_starting_after: page.more_starting_after }),
    },
  };
};

const add: Handler<'referrals-add-holders'> & Handler<'referrals-add-holders-1'> = async ({ path, body, context, services }) => {
  const { memberId, campaignId } = path as CodePath;
  return { status: 200, body: { holders: await inProject(services, context, (ctx) => addHolders(ctx, memberId, campaignId, body)) } };
};

const remove: Handler<'referrals-remove-holder'> & Handler<'referrals-remove-holder-1'> = async ({ path, context, services }) => {
  const { memberId, campaignId, holderId } = path as CodePath & { holderId: string };
  await inProject(services, context, (ctx) => removeHolder(ctx, memberId, campaignId, holderId));
  return { status: 204 };
};

export const referralHandlers: HandlersOf<ReferralOperations> = {
  'referrals-code-holders': list,
  'referrals-code-holders-1': list,
  'referrals-add-holders': add,
  'referrals-add-holders-1': add,
  'referrals-remove-holder': remove,
  'referrals-remove-holder-1': remove,
};
