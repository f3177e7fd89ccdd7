/**
 * Balance transactions: a gift card's credits (added, removed, spent on a redemption, given back by its rollback)
 * and a loyalty card's points, listed per voucher and per campaign, and exported as CSV.
 */
import { describe, expect, test } from '@jest/globals';
import { expectError, failed } from './expect-error.js';
import { csvRecords, download, finishedExport } from './data-helpers.js';
import { raw, unique, useTarget } from './target.js';

const ctx = useTarget();

/** A gift card campaign with `count` cards of 5000 credits each. */
async function giftCards(count: number) {
  const campaign = (await ctx.client.POST('/v1/campaigns', {
    body: { name: unique('Gift cards'), campaign_type: 'GIFT_VOUCHERS', voucher: { type: 'GIFT_VOUCHER', gift: { amount: 5000 } }, vouchers_count: count } as never,
  })).data!;
  const codes = (await ctx.client.GET('/v1/vouchers', { params: { query: { campaign_id: campaign.id } } })).data!.vouchers!.map((voucher) => voucher.code!);
  return { campaign, codes };
}

const transactionsOf = async (code: string, query: { limit?: number; order?: 'id' | '-id'; starting_after_id?: string } = {}) =>
  (await ctx.client.GET('/v1/vouchers/{code}/transactions', { params: { path: { code }, query } })).data!;

describe('transactions', () => {
  test("when a gift card's credit is added, removed, spent and given back, then each movement is a transaction with the balance after it", async () => {
    const { campaign, codes: [code] } = await giftCards(1);
    const card = (await ctx.client.GET('/v1/vouchers/{code}', { params: { path: { code: code! } } })).data!;
    await ctx.client.POST('/v1/vouchers/{code}/balance', { params: { path: { code: code! } }, body: { amount: 1000, reason: 'Birthday top-up', source_id: 'topup-1' } });
    await ctx.client.POST('/v1/vouchers/{code}/balance', { params: { path: { code: code! } }, body: { amount: -500 } });
    const orderSource = unique('gift-order');
    const redeemed = await ctx.client.POST('/v1/redemptions', { body: { redeemables: [{ object: 'voucher', id: code!, gift: { credits: 2000 } }], order: { amount: 8000, source_id: orderSource } } });
    expect(redeemed.response.status).toBe(200);
    const child = redeemed.data!.redemptions![0]!;
    const rolled = await ctx.client.POST('/v1/redemptions/{redemptionId}/rollback', { params: { path: { redemptionId: child.id } }, body: {} });
    expect(rolled.response.status).toBe(200);

    const list = await transactionsOf(code!);
    expect(list).toMatchObject({ object: 'list', data_ref: 'data', has_more: false });
    const balance = (amount: number, total: number, after: number, operation: 'MANUAL' | 'AUTOMATIC') => ({
      amount, total, balance: after, type: 'gift_voucher', object: 'balance', operation_type: operation, related_object: { type: 'voucher', id: card.id },
    });
    const common = { voucher_id: card.id, campaign_id: campaign.id, related_transaction_id: null, created_at: expect.any(String), id: expect.stringMatching(/^vtx_/) };
    expect(list.data).toEqual([
      { ...common, type: 'CREDITS_REFUND', source_id: null, source: null, reason: null, details: { balance: balance(2000, 6000, 5500, 'AUTOMATIC'), order: { id: redeemed.data!.order!.id, source_id: orderSource }, redemption: { id: child.id }, rollback: { id: rolled.data!.id } } },
      { ...common, type: 'CREDITS_REDEMPTION', source_id: null, source: 'API', reason: null, details: { balance: balance(-2000, 6000, 3500, 'MANUAL'), order: { id: redeemed.data!.order!.id, source_id: orderSource }, redemption: { id: child.id } } },
      { ...common, type: 'CREDITS_REMOVAL', source_id: null, source: 'API', reason: null, details: { balance: balance(-500, 6000, 5500, 'MANUAL') } },
      { ...common, type: 'CREDITS_ADDITION', source_id: 'topup-1', source: 'API', reason: 'Birthday top-up', details: { balance: balance(1000, 6000, 6000, 'MANUAL') } },
    ]);
    // Oldest first, a page at a time.
    const first = await transactionsOf(code!, { order: 'id', limit: 3 });
    expect(first.data.map((entry) => entry.type)).toEqual(['CREDITS_ADDITION', 'CREDITS_REMOVAL', 'CREDITS_REDEMPTION']);
    expect(first).toMatchObject({ has_more: true, more_starting_after: first.data[2]!.id });
    const rest = await transactionsOf(code!, { order: 'id', limit: 3, starting_after_id: first.more_starting_after! });
    expect(rest.data.map((entry) => entry.type)).toEqual(['CREDITS_REFUND']);
    expect(rest.has_more).toBe(false);
    expectError(await raw(ctx.target, 'GET', `/v1/vouchers/${encodeURIComponent(code!)}/transactions?starting_after_id=vtx_000000000000000000`), 400, 'invalid_query_params');
  });

  test("when a loyalty card's points move, then the voucher's transactions are the ones member activity shows", async () => {
    const club = (await ctx.client.POST('/v1/loyalties', { body: { name: unique('Points club'), voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } } } })).data!;
    const card = (await ctx.client.POST('/v1/loyalties/{campaignId}/members', { params: { path: { campaignId: club.id! } }, body: { customer: { source_id: unique('pointer') } } })).data!;
    await ctx.client.POST('/v1/loyalties/members/{memberId}/balance', { params: { path: { memberId: card.code! } }, body: { points: 70, reason: 'Welcome' } });
    await ctx.client.POST('/v1/loyalties/members/{memberId}/balance', { params: { path: { memberId: card.code! } }, body: { points: -20 } });
    const voucherList = await transactionsOf(card.code!);
    const memberList = (await ctx.client.GET('/v1/loyalties/members/{memberId}/transactions', { params: { path: { memberId: card.code! } } })).data!;
    expect(voucherList).toEqual(memberList);
    expect(voucherList.data.map((entry) => [entry.type, entry.details?.balance?.balance])).toEqual([['POINTS_REMOVAL', 50], ['POINTS_ADDITION', 70]]);

    const campaignList = (await ctx.client.GET('/v1/loyalties/{campaignId}/transactions', { params: { path: { campaignId: club.id! } } })).data!;
    expect(campaignList.data).toEqual(voucherList.data);
    expectError(failed(await ctx.client.GET('/v1/loyalties/{campaignId}/transactions', { params: { path: { campaignId: (await giftCards(1)).campaign.id! } } })), 404, 'not_found');
  });

  test("when a campaign's transactions are listed, then every card's are there, and filters narrow them", async () => {
    const { campaign, codes } = await giftCards(2);
    for (const [index, code] of codes.entries()) {
      await ctx.client.POST('/v1/vouchers/{code}/balance', { params: { path: { code } }, body: { amount: 100 * (index + 1) } });
    }
    type Page = { data: { id: string; details?: { balance?: { amount?: number } } }[] };
    const read = async (query = '') => {
      const answer = await raw(ctx.target, 'GET', `/v1/campaigns/${campaign.id}/transactions${query}`);
      expect(answer.status).toBe(200);
      return answer.body as Page;
    };
    const all = (await ctx.client.GET('/v1/campaigns/{campaignId}/transactions', { params: { path: { campaignId: campaign.id! } } })).data!;
    expect(all.data.map((entry) => entry.details?.balance?.amount)).toEqual([200, 100]);
    const second = (await ctx.client.GET('/v1/vouchers/{code}', { params: { path: { code: codes[1]! } } })).data!;
    expect((await read(`?filters[voucher_id][conditions][$in][]=${second.id}`)).data).toEqual([all.data[0]]);
    expect((await read(`?filters[id][conditions][$is]=${all.data[1]!.id}`)).data).toEqual([all.data[1]]);
    expect((await read(`?filters[junction]=or&filters[id][conditions][$is]=${all.data[1]!.id}&filters[voucher_id][conditions][$is]=${second.id}`)).data).toEqual(all.data);
    expectError(await raw(ctx.target, 'GET', `/v1/campaigns/${campaign.id}/transactions?filters[amount][conditions][$is]=1`), 400, 'invalid_query_params');
    expectError(failed(await ctx.client.GET('/v1/campaigns/{campaignId}/transactions', { params: { path: { campaignId: 'camp_000000000000000000' } } })), 404, 'not_found');
  });

  test('when a discount voucher or an unknown code is asked for, then the first has none and the second is 404', async () => {
    const code = unique('TX-DISC');
    await ctx.client.POST('/v1/vouchers/{code}', { params: { path: { code } }, body: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 1 } } });
    expect(await transactionsOf(code)).toEqual({ object: 'list', data_ref: 'data', data: [], has_more: false });
    expectError(failed(await ctx.client.GET('/v1/vouchers/{code}/transactions', { params: { path: { code: unique('TX-NONE') } } })), 404, 'not_found');
  });

  test("when transactions are exported for a voucher, a campaign or a member, then the file holds only theirs", async () => {
    const { campaign, codes } = await giftCards(2);
    for (const code of codes) await ctx.client.POST('/v1/vouchers/{code}/balance', { params: { path: { code } }, body: { amount: 300, reason: `for ${code}` } });
    const [one] = codes;
    const fields: ('voucher_id' | 'type' | 'amount' | 'balance' | 'reason')[] = ['voucher_id', 'type', 'amount', 'balance', 'reason'];
    const oneId = (await ctx.client.GET('/v1/vouchers/{code}', { params: { path: { code: one! } } })).data!.id;
    const byVoucher = await ctx.client.POST('/v1/vouchers/{code}/transactions/export', { params: { path: { code: one! } }, body: { parameters: { fields } } });
    expect(byVoucher.data).toMatchObject({
      exported_object: 'voucher_transactions',
      status: 'SCHEDULED',
      parameters: { order: '-created_at', fields, filters: { junction: 'and', voucher_id: { conditions: { $in: [oneId] } } } },
    });
    const rows = async (id: string) => {
      const done = await finishedExport(ctx.client, id);
      const file = await download(ctx.target, done.result!.url);
      return csvRecords(file.text);
    };
    expect(await rows(byVoucher.data!.id)).toEqual([{ voucher_id: oneId, type: 'CREDITS_ADDITION', amount: '300', balance: '5300', reason: `for ${one}` }]);

    const byCampaign = await ctx.client.POST('/v1/campaigns/{campaignId}/transactions/export', {
      params: { path: { campaignId: campaign.id! } },
      body: { parameters: { fields: ['voucher_id', 'amount'], order: 'created_at', filters: { created_at: { conditions: { $after: '2000-01-01T00:00:00Z' } } } } },
    });
    expect(byCampaign.data!.parameters?.filters).toEqual({ junction: 'and', created_at: { conditions: { $after: '2000-01-01T00:00:00Z' } }, campaign_id: { conditions: { $in: [campaign.id] } } });
    expect((await rows(byCampaign.data!.id)).map((row) => row.amount)).toEqual(['300', '300']);

    const club = (await ctx.client.POST('/v1/loyalties', { body: { name: unique('Export club'), voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } } } })).data!;
    const card = (await ctx.client.POST('/v1/loyalties/{campaignId}/members', { params: { path: { campaignId: club.id! } }, body: { customer: { source_id: unique('exported') } } })).data!;
    await ctx.client.POST('/v1/loyalties/members/{memberId}/balance', { params: { path: { memberId: card.code! } }, body: { points: 40 } });
    const expected = [{ voucher_id: card.id, type: 'POINTS_ADDITION', amount: '40', balance: '40', reason: '' }];
    const member = await ctx.client.POST('/v1/loyalties/members/{memberId}/transactions/export', { params: { path: { memberId: card.code! } }, body: { parameters: { fields } } });
    expect(await rows(member.data!.id)).toEqual(expected);
    const programMember = await ctx.client.POST('/v1/loyalties/{campaignId}/members/{memberId}/transactions/export', {
      params: { path: { campaignId: club.id!, memberId: card.code! } },
      body: { parameters: { fields } },
    });
    expect(await rows(programMember.data!.id)).toEqual(expected);
    const program = await ctx.client.POST('/v1/loyalties/{campaignId}/transactions/export', { params: { path: { campaignId: club.id! } }, body: { parameters: { fields } } });
    expect(await rows(program.data!.id)).toEqual(expected);
    expectError(
      failed(await ctx.client.POST('/v1/loyalties/{campaignId}/members/{memberId}/transactions/export', { params: { path: { campaignId: campaign.id!, memberId: card.code! } }, body: {} })),
      404,
      'not_found',
    );
    expectError(failed(await ctx.client.POST('/v1/vouchers/{code}/transactions/export', { params: { path: { code: unique('TX-NONE') } }, body: {} })), 404, 'not_found');
  });
});
