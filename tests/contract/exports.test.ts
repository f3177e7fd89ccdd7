/**
 * Exports: CSV files of a project's objects, written in the background, listed, read, deleted and downloaded. Each
 * scenario checks the file with a real CSV parser: its header is the columns asked for, in that order, and it has
 * one line per object the filters keep.
 */
import { describe, expect, test } from '@jest/globals';
import { expectError, failed } from './expect-error.js';
import { csvRecords, csvRows, download, finishedAction, finishedExport } from './data-helpers.js';
import { raw, unique, useTarget } from './target.js';

const ctx = useTarget();

async function voucher(code: string, body: Record<string, unknown>) {
  const made = await ctx.client.POST('/v1/vouchers/{code}', { params: { path: { code } }, body: body as never });
  expect(made.response.status).toBe(200);
  return made.data!;
}

/** Creates an export, checks it is scheduled, and returns it once it has ended. */
async function exported(body: Record<string, unknown>) {
  const created = await ctx.client.POST('/v1/exports', { body: body as never });
  expect(created.response.status).toBe(200);
  expect(created.data).toMatchObject({ id: expect.stringMatching(/^exp_/), object: 'export', status: 'SCHEDULED', channel: 'API', result: null, user_id: null });
  return finishedExport(ctx.client, created.data!.id);
}

/** The file of a finished export, as records by column, after checking its header is exactly `fields`. */
async function fileOf(done: { status?: string; result?: { url: string } | null }, fields: string[]) {
  expect(done.status).toBe('DONE');
  const file = await download(ctx.target, done.result!.url);
  expect(file.status).toBe(200);
  expect(file.type).toMatch(/^text\/csv/);
  expect(csvRows(file.text)[0]).toEqual(fields);
  return csvRecords(file.text);
}

describe('exports', () => {
  test('when vouchers are exported with columns and filters, then the file holds exactly the matching vouchers, their values in those columns', async () => {
    const batch = unique('batch');
    const percent = await voucher(unique('EXP-P'), {
      type: 'DISCOUNT_VOUCHER',
      discount: { type: 'PERCENT', percent_off: 15, amount_limit: 2000 },
      metadata: { batch },
      additional_info: 'Printed, "folded" card\nsecond line',
      redemption: { quantity: 3 },
      expiration_date: '2030-06-30T23:59:59.000Z',
    });
    const gift = await voucher(unique('EXP-G'), { type: 'GIFT_VOUCHER', gift: { amount: 5000 }, metadata: { batch } });
    await voucher(unique('EXP-OFF'), { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 }, active: false, metadata: { batch } });
    await voucher(unique('EXP-OTHER'), { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 }, metadata: { batch: 'another' } });
    const fields = ['code', 'voucher_type', 'value', 'discount_type', 'discount_amount_limit', 'gift_balance', 'redemption_quantity', 'active', 'additional_info', 'expiration_date', 'metadata', 'id'];
    const done = await exported({
      exported_object: 'voucher',
      parameters: { order: 'code', fields, filters: { junction: 'and', [`metadata.batch`]: { conditions: { $in: [batch] } }, active: { conditions: { $is: [true] } } } },
    });
    expect(done).toMatchObject({ exported_object: 'voucher', parameters: { order: 'code', fields }, result: { url: expect.stringContaining(`/v1/exports/${done.id}/download?token=`) } });
    const rows = await fileOf(done, fields);
    expect(rows).toEqual(
      [
        {
          code: percent.code, voucher_type: 'DISCOUNT_VOUCHER', value: '15', discount_type: 'PERCENT', discount_amount_limit: '2000', gift_balance: '',
          redemption_quantity: '3', active: 'true', additional_info: 'Printed, "folded" card\nsecond line', expiration_date: '2030-06-30T23:59:59.000Z',
          metadata: JSON.stringify({ batch }), id: percent.id,
        },
        {
          code: gift.code, voucher_type: 'GIFT_VOUCHER', value: '5000', discount_type: '', discount_amount_limit: '', gift_balance: '5000', redemption_quantity: '',
          active: 'true', additional_info: '', expiration_date: '', metadata: JSON.stringify({ batch }), id: gift.id,
        },
      ].sort((a, b) => a.code!.localeCompare(b.code!)),
    );
  });

  test('when no columns are asked for, then the default ones are written and echoed, and a campaign export holds its vouchers across many pages', async () => {
    const campaign = (await ctx.client.POST('/v1/campaigns', {
      body: { name: unique('Export pages'), campaign_type: 'DISCOUNT_COUPONS', type: 'AUTO_UPDATE', voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 700 } } } as never,
    })).data!;
    const generating = await ctx.client.POST('/v1/campaigns/{campaignId}/vouchers', { params: { path: { campaignId: campaign.id! }, query: { vouchers_count: 1200 } }, body: {} });
    expect(generating.response.status).toBe(202);
    await finishedAction(ctx.client, (generating.data as { async_action_id: string }).async_action_id);
    const done = await exported({ exported_object: 'voucher', parameters: { campaign_id: campaign.id } });
    const defaults = ['code', 'voucher_type', 'value', 'discount_type', 'campaign', 'category', 'start_date', 'expiration_date', 'gift_balance', 'loyalty_balance', 'redemption_quantity', 'redemption_count', 'active', 'metadata'];
    expect(done.parameters).toEqual({ order: '-created_at', fields: defaults, campaign_id: campaign.id });
    const rows = await fileOf(done, defaults);
    expect(rows).toHaveLength(1200);
    expect(new Set(rows.map((row) => row.code)).size).toBe(1200);
    expect(rows.every((row) => row.campaign === campaign.name && row.value === '700' && row.discount_type === 'AMOUNT' && row.metadata === '{}')).toBe(true);
  });

  test('when an export is listed, read and deleted, then it is found, then gone with its file', async () => {
    const done = await exported({ exported_object: 'customer', parameters: { fields: ['id'], filters: { source_id: { conditions: { $is: [unique('nobody')] } } } } });
    await fileOf(done, ['id']);
    const list = (await ctx.client.GET('/v1/exports', { params: { query: { limit: 100 } } })).data!;
    expect(list).toMatchObject({ object: 'list', data_ref: 'exports', total: expect.any(Number) });
    expect(list.exports.find((item) => item.id === done.id)).toEqual(done);
    expect(list.exports.map((item) => item.created_at)).toEqual([...list.exports.map((item) => item.created_at)].sort().reverse());
    const byStatus = (await ctx.client.GET('/v1/exports', { params: { query: { order: 'status', limit: 100 } } })).data!;
    expect(byStatus.exports.map((item) => item.status)).toEqual([...byStatus.exports.map((item) => item.status)].sort());
    const path = { exportId: done.id };
    expect((await ctx.client.GET('/v1/exports/{exportId}', { params: { path } })).data).toEqual(done);
    expect((await ctx.client.DELETE('/v1/exports/{exportId}', { params: { path } })).response.status).toBe(204);
    expectError(failed(await ctx.client.GET('/v1/exports/{exportId}', { params: { path } })), 404, 'not_found');
    expectError(failed(await ctx.client.DELETE('/v1/exports/{exportId}', { params: { path } })), 404, 'not_found');
    const file = await download(ctx.target, done.result!.url);
    expect(file.status).toBe(404);
    expect((await ctx.client.GET('/v1/exports', { params: { query: { limit: 100 } } })).data!.exports.some((item) => item.id === done.id)).toBe(false);
  });

  test("when the file is downloaded, then the key's credentials are needed and a token of another export is refused", async () => {
    const first = await exported({ exported_object: 'order', parameters: { fields: ['id'], filters: { source_id: { conditions: { $is: [unique('none')] } } } } });
    const second = await exported({ exported_object: 'order', parameters: { fields: ['source_id'], filters: { source_id: { conditions: { $is: [unique('none')] } } } } });
    const file = await download(ctx.target, first.result!.url);
    expect(file).toMatchObject({ status: 200, text: 'id\n', disposition: expect.stringContaining(`${first.id}.csv`) });
    const secondToken = new URL(second.result!.url).searchParams.get('token')!;
    const stolen = await raw(ctx.target, 'GET', `/v1/exports/${first.id}/download?token=${secondToken}`);
    expectError(stolen, 401, 'unauthorized');
    expect((await raw(ctx.target, 'GET', `/v1/exports/${first.id}/download`)).status).toBe(200);
    expectError(await raw(ctx.target, 'GET', `/v1/exports/${first.id}/download`, { credentials: null }), 401, 'unauthorized');
    expectError(await raw(ctx.target, 'GET', '/v1/exports/exp_000000000000000000/download'), 404, 'not_found');
  });

  test('when the request asks for what an export cannot do, then it is refused with 400 and nothing is scheduled', async () => {
    const before = (await ctx.client.GET('/v1/exports', { params: { query: { limit: 1 } } })).data!.total;
    // What the contract itself refuses is `invalid_payload`; what only the engine cannot do is `invalid_export`.
    const refused = async (body: unknown, key = 'invalid_export') => expectError(await raw(ctx.target, 'POST', '/v1/exports', { body: JSON.stringify(body) }), 400, key);
    await refused({ exported_object: 'voucher', parameters: { fields: ['code', 'no_such_field'] } }, 'invalid_payload');
    await refused({ exported_object: 'voucher', parameters: { fields: ['code', 'code'] } }, 'invalid_payload');
    await refused({ exported_object: 'voucher', parameters: { order: 'email' } }, 'invalid_payload');
    await refused({ exported_object: 'planet' }, 'invalid_payload');
    await refused({ exported_object: 'voucher', parameters: { filters: { planet: { conditions: { $is: ['Mars'] } } } } });
    await refused({ exported_object: 'voucher', parameters: { filters: { code: { conditions: { $sounds_like: ['x'] } } } } });
    await refused({ exported_object: 'voucher', parameters: { filters: { code: { conditions: { $in: [{ nested: true }] } } } } });
    await refused({ exported_object: 'voucher', parameters: { filters: { code: { conditions: { $count: [2] } } } } });
    await refused({ exported_object: 'voucher', parameters: { filters: { created_at: { conditions: { $more_than_ago: ['soon'] } } } } });
    await refused({ exported_object: 'voucher', parameters: { filters: { redemption_status: { conditions: { $is: ['REDEEMED'] } } } } });
    await refused({ exported_object: 'points_expiration', parameters: { filters: { [`metadata.color`]: { conditions: { $is: ['red'] } } } } });
    const unknownCampaign = await raw(ctx.target, 'POST', '/v1/exports', { body: JSON.stringify({ exported_object: 'voucher', parameters: { campaign_id: 'camp_000000000000000000' } }) });
    expectError(unknownCampaign, 404, 'not_found');
    expect((await ctx.client.GET('/v1/exports', { params: { query: { limit: 1 } } })).data!.total).toBe(before);
  });

  test('when filters compare days, counts and text, then each operator keeps what it says', async () => {
    const batch = unique('days');
    const weekend = await voucher(unique('EXP-W'), { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 1 }, metadata: { batch }, validity_day_of_week: [0, 6] });
    const anyDay = await voucher(unique('EXP-A'), { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 1 }, metadata: { batch } });
    // Every filter but the last is joined (AND) with the batch's own: the project holds other vouchers.
    const codes = async (filters: Record<string, unknown>, inBatch = true) => {
      const scope = inBatch ? { [`metadata.batch`]: { conditions: { $is: [batch] } } } : {};
      const done = await exported({ exported_object: 'voucher', parameters: { order: 'code', fields: ['code'], filters: { ...scope, ...filters } } });
      return (await fileOf(done, ['code'])).map((row) => row.code);
    };
    const both = [weekend.code, anyDay.code].sort();
    expect(await codes({ created_at: { conditions: { $less_than_ago: [1] } } })).toEqual(both);
    expect(await codes({ created_at: { conditions: { $more_than_ago: [1] } } })).toEqual([]);
    expect(await codes({ created_at: { conditions: { $is_days_ago: [0] } } })).toEqual(both);
    // The creation date is the day of the creation moment: today (UTC) on both sides of the comparison.
    const today = new Date().toISOString().slice(0, 10);
    expect(await codes({ created_date: { conditions: { $is: [today] } } })).toEqual(both);
    expect(await codes({ created_date: { conditions: { $before: [today] } } })).toEqual([]);
    expect(await codes({ created_date: { conditions: { $is_days_ago: [0] } } })).toEqual(both);
    expect(await codes({ validity_day_of_week: { conditions: { $count: [2] } } })).toEqual([weekend.code]);
    expect(await codes({ validity_day_of_week: { conditions: { $in: [6] } } })).toEqual([weekend.code]);
    expect(await codes({ code: { conditions: { $starts_with: ['EXP-A'] } } })).toEqual([anyDay.code]);
    expect(await codes({ validity_day_of_week: { conditions: { $count_more: [1] } } })).toEqual([weekend.code]);
    // `or` joins every clause, so these two name the vouchers themselves; `and` would keep neither.
    expect(await codes({ junction: 'or', code: { conditions: { $is: [anyDay.code] } }, vouchers: { conditions: { $is: [weekend.id] } } }, false)).toEqual(both);
    expect(await codes({ junction: 'and', code: { conditions: { $is: [anyDay.code] } }, vouchers: { conditions: { $is: [weekend.id] } } }, false)).toEqual([]);
  });

  test('when redemptions, customers, publications and orders are exported, then each file holds their own columns', async () => {
    const source = unique('exporter');
    const customer = (await ctx.client.POST('/v1/customers', { body: { source_id: source, name: 'Ada Export', email: `${source}@example.com`, address: { city: 'Kraków' }, metadata: { tier: 'gold' } } })).data!;
    const campaign = (await ctx.client.POST('/v1/campaigns', {
      body: { name: unique('Export campaign'), campaign_type: 'DISCOUNT_COUPONS', voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 500 } }, vouchers_count: 2 } as never,
    })).data!;
    const published = await ctx.client.POST('/v1/publications', { body: { customer: { id: customer.id }, campaign: { name: campaign.name! }, metadata: { via: 'export' } } });
    expect(published.response.status).toBe(200);
    const code = published.data!.voucher!.code!;
    const orderSource = unique('order');
    const redeemed = await ctx.client.POST('/v1/redemptions', {
      body: { redeemables: [{ object: 'voucher', id: code }], order: { amount: 4000, source_id: orderSource }, customer: { id: customer.id }, metadata: { till: 7 } },
    });
    expect(redeemed.response.status).toBe(200);

    const redemptions = await fileOf(
      await exported({ exported_object: 'redemption', parameters: { fields: ['object', 'voucher_code', 'campaign', 'customer_source_id', 'customer_name', 'order_amount', 'result', 'metadata'], filters: { voucher_code: { conditions: { $is: [code] } } } } }),
      ['object', 'voucher_code', 'campaign', 'customer_source_id', 'customer_name', 'order_amount', 'result', 'metadata'],
    );
    expect(redemptions).toEqual([{ object: 'redemption', voucher_code: code, campaign: campaign.name, customer_source_id: source, customer_name: 'Ada Export', order_amount: '4000', result: 'SUCCESS', metadata: '{"till":7}' }]);

    const customers = await fileOf(
      await exported({ exported_object: 'customer', parameters: { fields: ['source_id', 'email', 'address_city', 'redemptions_total_redeemed', 'orders_total_count', 'metadata'], filters: { email: { conditions: { $ends_with: [`${source}@example.com`] } }, city: { conditions: { $is: ['Kraków'] } } } } }),
      ['source_id', 'email', 'address_city', 'redemptions_total_redeemed', 'orders_total_count', 'metadata'],
    );
    expect(customers).toEqual([{ source_id: source, email: `${source}@example.com`, address_city: 'Kraków', redemptions_total_redeemed: '1', orders_total_count: '1', metadata: '{"tier":"gold"}' }]);
    const published2 = await fileOf(
      await exported({ exported_object: 'customer', parameters: { fields: ['source_id'], filters: { [`publications.related_object_id`]: { conditions: { $in: [published.data!.voucher!.id!] } } } } }),
      ['source_id'],
    );
    expect(published2).toEqual([{ source_id: source }]);

    const publications = await fileOf(
      await exported({ exported_object: 'publication', parameters: { filters: { customer_id: { conditions: { $is: [customer.id] } }, campaign_name: { conditions: { $is: [campaign.name] } } } } }),
      ['voucher_code', 'customer_id', 'customer_source_id', 'date', 'channel', 'campaign', 'is_winner', 'metadata'],
    );
    expect(publications).toEqual([
      { voucher_code: code, customer_id: customer.id, customer_source_id: source, date: published.data!.created_at, channel: 'API', campaign: campaign.name, is_winner: 'true', metadata: '{"via":"export"}' },
    ]);

    const orderExport = await ctx.client.POST('/v1/orders/export', {
      body: { parameters: { fields: ['source_id', 'status', 'amount', 'discount_amount', 'total_amount', 'customer_id'], filters: { source_id: { conditions: { $is: [orderSource] } } } } },
    });
    expect(orderExport.data).toMatchObject({ exported_object: 'order', status: 'SCHEDULED' });
    const orders = await fileOf(await finishedExport(ctx.client, orderExport.data!.id), ['source_id', 'status', 'amount', 'discount_amount', 'total_amount', 'customer_id']);
    expect(orders).toEqual([{ source_id: orderSource, status: 'PAID', amount: '4000', discount_amount: '500', total_amount: '3500', customer_id: customer.id }]);
    // The total discount is the order's discounts together, as the redemption left them.
    const ordersBy = async (conditions: Record<string, unknown>) =>
      (
        await fileOf(
          await exported({ exported_object: 'order', parameters: { fields: ['source_id'], filters: { source_id: { conditions: { $is: [orderSource] } }, total_discount_amount: { conditions } } } }),
          ['source_id'],
        )
      ).map((row) => row.source_id);
    expect(await ordersBy({ $is: [500] })).toEqual([orderSource]);
    expect(await ordersBy({ $more_than: [500] })).toEqual([]);

    // A publication's voucher type and referral flag are its voucher's.
    const publicationsBy = async (filters: Record<string, unknown>) =>
      (
        await fileOf(
          await exported({ exported_object: 'publication', parameters: { fields: ['voucher_code'], filters: { customer_id: { conditions: { $is: [customer.id] } }, ...filters } } }),
          ['voucher_code'],
        )
      ).map((row) => row.voucher_code);
    expect(await publicationsBy({ voucher_type: { conditions: { $is: ['DISCOUNT_VOUCHER'] } }, is_referral_code: { conditions: { $is: [false] } } })).toEqual([code]);
    expect(await publicationsBy({ voucher_type: { conditions: { $is: ['GIFT_VOUCHER'] } } })).toEqual([]);
  });

  test("when a program's expiring points are exported, then there is a line per card and day with the points", async () => {
    const club = (await ctx.client.POST('/v1/loyalties', {
      body: { name: unique('Expiring club'), voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0, expiration_rules: { period_type: 'MONTH', period_value: 1, rounding_type: 'END_OF_MONTH' } } } },
    })).data!;
    const card = (await ctx.client.POST('/v1/loyalties/{campaignId}/members', { params: { path: { campaignId: club.id! } }, body: { customer: { source_id: unique('saver') } } })).data!;
    await ctx.client.POST('/v1/loyalties/members/{memberId}/balance', { params: { path: { memberId: card.code! } }, body: { points: 120 } });
    const expires = (await ctx.client.GET('/v1/loyalties/members/{memberId}', { params: { path: { memberId: card.code! } } })).data!.loyalty_card!.next_expiration_date!;
    const scheduled = await ctx.client.POST('/v1/loyalties/{campaignId}/points-expiration/export', { params: { path: { campaignId: club.id! } }, body: { parameters: { order: 'expires_at' } } });
    expect(scheduled.data).toMatchObject({ exported_object: 'points_expiration', status: 'SCHEDULED', parameters: { filters: { campaign_id: { conditions: { $in: [club.id] } } } } });
    const rows = await fileOf(await finishedExport(ctx.client, scheduled.data!.id!), ['id', 'campaign_id', 'voucher_id', 'points', 'status', 'expires_at']);
    expect(rows).toEqual([{ id: `${card.id}-${expires}`, campaign_id: club.id, voucher_id: card.id, points: '120', status: 'ACTIVE', expires_at: expires }]);
    const notAProgram = await ctx.client.POST('/v1/loyalties/{campaignId}/points-expiration/export', { params: { path: { campaignId: 'camp_000000000000000000' } }, body: {} });
    expectError(failed(notAProgram), 404, 'not_found');
  });

  test('when the request is too large for the contract, then it is refused before anything starts', async () => {
    const tooMany = Array.from({ length: 1001 }, (_, index) => `v${index}`);
    expectError(
      await raw(ctx.target, 'POST', '/v1/exports', { body: JSON.stringify({ exported_object: 'voucher', parameters: { filters: { code: { conditions: { $in: tooMany } } } } }) }),
      400,
      'invalid_payload',
    );
    expectError(await raw(ctx.target, 'GET', '/v1/exports?limit=101'), 400, 'invalid_query_params');
  });
});
