/**
 * The Node.js SDK `voucherify` 5.2.0, unmodified: its export methods and its voucher imports (standalone and into
 * a campaign). The SDK passes each argument through as the request body, so every call carries every field the
 * API's request takes, and the scenarios check what the server made of it.
 */
import { describe, expect, test } from '@jest/globals';
import { csvRecords, download, finishedAction, finishedExport } from './data-helpers.js';
import { dataMethods } from './sdk-data-methods.js';
import { expectAllCalled, useNodeSdk, type Body, type Reply } from './sdk-node.js';
import { unique, useTarget } from './target.js';

const ctx = useTarget();
const node = useNodeSdk(ctx);

type VoucherImport = Body<'import-vouchers'>[number];

const voucher = async (code: string) => (await ctx.client.GET('/v1/vouchers/{code}', { params: { path: { code } } })).data!;

describe('the Node.js SDK: exports', () => {
  test('when an export is created with every parameter, read and deleted, then its file holds the campaign vouchers the filters keep', async () => {
    const { sdk } = node;
    const campaign = (await ctx.client.POST('/v1/campaigns', {
      body: { name: unique('Node export'), campaign_type: 'DISCOUNT_COUPONS', type: 'AUTO_UPDATE', voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 300 } } } as never,
    })).data!;
    const codes = [unique('NODE-EXP-A'), unique('NODE-EXP-B')].sort();
    for (const [index, code] of codes.entries()) {
      await ctx.client.POST('/v1/campaigns/{campaignId}/vouchers/{code}', { params: { path: { campaignId: campaign.id!, code } }, body: { metadata: { rank: index } } });
    }
    const resource = {
      exported_object: 'voucher',
      parameters: {
        order: '-code',
        fields: ['code', 'campaign', 'value', 'metadata'],
        filters: { junction: 'or', code: { conditions: { $in: codes } } },
        campaign_id: campaign.id!,
      },
    } satisfies Body<'create-export'>;
    const created: Reply<'create-export'> = await node.sdk.distributions.exports.create(resource);
    expect(created).toMatchObject({ object: 'export', status: 'SCHEDULED', exported_object: 'voucher', parameters: resource.parameters });
    await finishedExport(ctx.client, created.id);
    const read: Reply<'get-export'> = await sdk.distributions.exports.get(created.id);
    expect(read.status).toBe('DONE');
    expect(csvRecords((await download(ctx.target, read.result!.url)).text)).toEqual([
      { code: codes[1], campaign: campaign.name, value: '300', metadata: '{"rank":1}' },
      { code: codes[0], campaign: campaign.name, value: '300', metadata: '{"rank":0}' },
    ]);
    await sdk.distributions.exports.delete(created.id);
    expect((await ctx.client.GET('/v1/exports/{exportId}', { params: { path: { exportId: created.id } } })).response.status).toBe(404);
  });
});

describe('the Node.js SDK: voucher imports', () => {
  test('when vouchers are imported with every field, then each is made as sent, standalone or in the campaign', async () => {
    const { sdk } = node;
    const shelf = (await ctx.client.POST('/v1/categories', { body: { name: unique('Node import shelf'), hierarchy: 1 } })).data!;
    const rule = (await ctx.client.POST('/v1/validation-rules', {
      body: { name: unique('Node import rule'), rules: { '1': { name: 'order.amount', conditions: { $more_than: [100] }, rules: {} }, logic: '1' } },
    })).data!;
    const code = unique('NODE-IMP');
    const item = {
      code,
      type: 'DISCOUNT_VOUCHER',
      campaign: null,
      campaign_id: null,
      category: null,
      category_id: shelf.id,
      discount: { type: 'AMOUNT', amount_off: 450 },
      gift: null,
      loyalty_card: null,
      start_date: '2026-02-01T00:00:00.000Z',
      expiration_date: '2031-02-01T00:00:00.000Z',
      validity_timeframe: { interval: 'P1D', duration: 'PT12H' },
      validity_day_of_week: [1, 3, 5],
      validity_hours: { daily: [{ start_time: '08:00', expiration_time: '20:00', days_of_week: [1, 3, 5] }] },
      active: true,
      additional_info: 'Imported through the Node.js SDK',
      metadata: { lane: 'node' },
      redemption: { quantity: 5 },
      validation_rules: [rule.id],
    } satisfies Required<VoucherImport>;
    const started: Reply<'import-vouchers'> = await sdk.vouchers.import([item]);
    expect(await finishedAction(ctx.client, started.async_action_id!)).toMatchObject({ type: 'VOUCHERS.IMPORT', result: { done_count: 1, failed_count: 0 } });
    const made = await voucher(code);
    expect(made).toMatchObject({
      category_id: shelf.id,
      discount: { type: 'AMOUNT', amount_off: 450 },
      start_date: item.start_date,
      expiration_date: item.expiration_date,
      validity_timeframe: item.validity_timeframe,
      validity_day_of_week: item.validity_day_of_week,
      validity_hours: item.validity_hours,
      additional_info: item.additional_info,
      metadata: item.metadata,
      redemption: { quantity: 5 },
    });
    expect(made.validation_rules_assignments?.data?.map((entry) => entry.rule_id)).toEqual([rule.id]);

    const campaign = (await ctx.client.POST('/v1/campaigns', {
      body: { name: unique('Node import campaign'), campaign_type: 'GIFT_VOUCHERS', type: 'AUTO_UPDATE', voucher: { type: 'GIFT_VOUCHER', gift: { amount: 2000 } } } as never,
    })).data!;
    const giftCode = unique('NODE-GIFT');
    const gift = { ...item, code: giftCode, type: 'GIFT_VOUCHER', category_id: null, discount: null, gift: { amount: 3500 }, validation_rules: [] } satisfies Required<VoucherImport>;
    const inCampaign: Reply<'import-vouchers-to-campaign'> = await sdk.campaigns.importVouchers(campaign.name!, [gift]);
    expect(await finishedAction(ctx.client, inCampaign.async_action_id!)).toMatchObject({ type: 'CAMPAIGN.VOUCHERS_IMPORT', result: { done_count: 1 } });
    expect(await voucher(giftCode)).toMatchObject({ campaign_id: campaign.id, type: 'GIFT_VOUCHER', gift: { amount: 3500, balance: 3500 }, metadata: { lane: 'node' } });
  });
});

describe('the Node.js SDK: coverage', () => {
  test('every method that reaches an export or import operation was called', () => {
    const expected = dataMethods('voucherify');
    expect(expected).toEqual(['campaigns.importVouchers', 'exports.create', 'exports.delete', 'exports.get', 'vouchers.import']);
    // The SDK's export methods are reached at `distributions.exports` (its Exports class is handed to Distributions
    // and not put on the client), while the inventory names them after their file, `exports.*`.
    expectAllCalled(node.calls, expected.map((name) => (name.startsWith('exports.') ? `distributions.${name}` : name)));
  });
});
