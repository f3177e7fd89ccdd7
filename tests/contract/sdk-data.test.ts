/**
 * `@voucherify/sdk` 2.9.0, unmodified, for exports, imports, bulk jobs, async actions and balance transactions:
 * every method that reaches one of those operations is called as an integrator would, with every field its
 * request type declares (`satisfies Every<…>`), and what comes back is read through the SDK's declared response
 * type. The CSV methods read a file from disk, so each scenario writes its file first.
 */
import { afterAll, describe, expect, test } from '@jest/globals';
import sdk from '@voucherify/sdk';
import type {
  CampaignsImportVouchers,
  CustomersUpdateInBulkRequestBody,
  CustomersUpdateMetadataInBulkRequestBody,
  ExportResource,
  ExportsCreateResponse,
  ExportsListRequestQuery,
  ExportsListResponseBody,
  OrdersCreate,
  ProductsBulkUpdate,
  ProductsBulkUpdateMetadata,
  VouchersBulkUpdate,
  VouchersBulkUpdateMetadata,
  VouchersExportTransactionsRequestBody,
  VouchersExportTransactionsResponseBody,
  VouchersImport,
  VouchersListTransactionsRequestQuery,
  VouchersListTransactionsResponseBody,
} from '@voucherify/sdk';
import type { AsyncActionCreateResponse, AsyncActionsListParams, AsyncActionsListResponse } from '@voucherify/sdk/dist/types/AsyncActions.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { csvRecords, download, finishedAction, finishedExport } from './data-helpers.js';
import { dataMethods } from './sdk-data-methods.js';
import { recording } from './sdk-methods.js';
import type { Every } from './sdk-requests.js';
import { unique, useTarget } from './target.js';

const { VoucherifyServerSide, DiscountVouchersTypesEnum } = sdk;

const ctx = useTarget();
const calls = new Set<string>();
const files = mkdtempSync(join(tmpdir(), 'sdk-data-'));
afterAll(() => rmSync(files, { recursive: true, force: true }));

function client() {
  const { appId, appToken } = ctx.target.credentials;
  return recording(VoucherifyServerSide({ applicationId: appId, secretKey: appToken, apiUrl: ctx.target.baseUrl }), calls);
}

/** A CSV file on disk, for the SDK's CSV methods. */
function csvFile(name: string, lines: string[]): string {
  const path = join(files, `${name}.csv`);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

const voucher = async (code: string) => (await ctx.client.GET('/v1/vouchers/{code}', { params: { path: { code } } })).data!;

describe('@voucherify/sdk exports and async actions', () => {
  test('when an export is created, listed, read and deleted through the SDK, then its file holds what was asked for', async () => {
    const sdkClient = client();
    const code = unique('SDK-EXP');
    await ctx.client.POST('/v1/vouchers/{code}', { params: { path: { code } }, body: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 250 }, metadata: { sdk: 'export' } } });
    const resource = {
      exported_object: 'voucher',
      parameters: { order: 'code', fields: ['code', 'value', 'metadata'], filters: { junction: 'AND', code: { conditions: { $in: [code] } } } },
    } satisfies Every<ExportResource>;
    const created: ExportsCreateResponse = await sdkClient.distributions.exports.create(resource);
    expect(created).toMatchObject({ id: expect.stringMatching(/^exp_/), object: 'export', status: 'SCHEDULED', exported_object: 'voucher', parameters: { fields: ['code', 'value', 'metadata'] } });
    const done = await finishedExport(ctx.client, created.id);
    const read: ExportsCreateResponse = await sdkClient.distributions.exports.get(created.id);
    expect(read).toMatchObject({ id: created.id, status: 'DONE', result: { url: expect.any(String) } });
    expect(csvRecords((await download(ctx.target, read.result!.url)).text)).toEqual([{ code, value: '250', metadata: '{"sdk":"export"}' }]);
    const query = { limit: 100, order: '-created_at', page: 1 } satisfies Every<ExportsListRequestQuery>;
    const list: ExportsListResponseBody = await sdkClient.distributions.exports.list(query);
    expect(list).toMatchObject({ object: 'list', data_ref: 'exports', total: expect.any(Number) });
    expect(list.exports.find((item) => item.id === created.id)).toMatchObject({ status: 'DONE', result: done.result! });
    await sdkClient.distributions.exports.delete(created.id);
    expect((await ctx.client.GET('/v1/exports/{exportId}', { params: { path: { exportId: created.id } } })).response.status).toBe(404);
  });

  test('when async actions are listed through the SDK, then the newest import comes first', async () => {
    const sdkClient = client();
    const shelf = (await ctx.client.POST('/v1/categories', { body: { name: unique('SDK listed shelf'), hierarchy: 1 } })).data!;
    const started: AsyncActionCreateResponse = await sdkClient.vouchers.import([
      {
        code: unique('SDK-AA'),
        category: shelf.name,
        type: 'DISCOUNT_VOUCHER',
        discount: { type: DiscountVouchersTypesEnum.AMOUNT, amount_off: 100, amount_off_formula: '', effect: 'APPLY_TO_ORDER' },
        additional_info: 'listed',
        start_date: '2026-01-01T00:00:00.000Z',
        expiration_date: '2031-01-01T00:00:00.000Z',
        active: true,
        metadata: {},
        redemption: { quantity: 1 },
        code_config: { length: 8, charset: '0123456789', pattern: '', prefix: '', suffix: '' },
      },
    ]);
    await finishedAction(ctx.client, started.async_action_id);
    const params = { limit: 5, end_date: '2999-01-01T00:00:00.000Z' } satisfies Every<AsyncActionsListParams>;
    const list: AsyncActionsListResponse = await sdkClient.asyncActions.list(params);
    expect(list).toMatchObject({ object: 'list', data_ref: 'async_actions' });
    expect(list.async_actions[0]).toMatchObject({ id: started.async_action_id, type: 'VOUCHERS.IMPORT', status: 'DONE', object: 'async_action' });
    expect(list.async_actions[0]).not.toHaveProperty('result');
  });
});

describe('@voucherify/sdk imports', () => {
  test('when vouchers are imported as JSON and from a file, then each is made with the fields sent, and a bad line is reported', async () => {
    const sdkClient = client();
    const shelf = (await ctx.client.POST('/v1/categories', { body: { name: unique('SDK import shelf'), hierarchy: 1 } })).data!;
    const code = unique('SDK-IMP');
    // `code_config` of an import item is not part of the API's import: the item has its code, so it is ignored.
    const item = {
      code,
      category: shelf.name,
      type: 'DISCOUNT_VOUCHER',
      discount: { type: DiscountVouchersTypesEnum.PERCENT, percent_off: 12, percent_off_formula: '', amount_limit: 900, effect: 'APPLY_TO_ORDER' },
      additional_info: 'From the SDK',
      start_date: '2026-01-01T00:00:00.000Z',
      expiration_date: '2031-01-01T00:00:00.000Z',
      active: false,
      metadata: { via: 'sdk' },
      redemption: { quantity: 4 },
      code_config: { length: 8, charset: 'ABC', pattern: '', prefix: '', suffix: '' },
    } satisfies Every<VouchersImport>;
    const started: AsyncActionCreateResponse = await sdkClient.vouchers.import([item]);
    expect(await finishedAction(ctx.client, started.async_action_id)).toMatchObject({ result: { done_count: 1, failed_count: 0 } });
    expect(await voucher(code)).toMatchObject({
      category: shelf.name,
      discount: { type: 'PERCENT', percent_off: 12, amount_limit: 900, effect: 'APPLY_TO_ORDER' },
      additional_info: 'From the SDK',
      start_date: '2026-01-01T00:00:00.000Z',
      expiration_date: '2031-01-01T00:00:00.000Z',
      active: false,
      metadata: { via: 'sdk' },
      redemption: { quantity: 4 },
    });

    const [fromFile, bad] = [unique('SDK-CSV'), unique('SDK-CSV-BAD')];
    const file = csvFile('vouchers', ['code,discount_type,value,category', `${fromFile},FIXED,1500,${shelf.name}`, `${bad},PERCENT,-5,`]);
    const fromCsv: AsyncActionCreateResponse = await sdkClient.vouchers.importCSV(file);
    const action = await finishedAction(ctx.client, fromCsv.async_action_id);
    expect(action.result).toMatchObject({ done_count: 1, failed_count: 1, failed: [{ row: 3, code: bad, field: 'value' }] });
    expect(await voucher(fromFile)).toMatchObject({ discount: { type: 'FIXED', fixed_amount: 1500 }, category: shelf.name });
  });

  test('when vouchers are imported into a campaign by name and from a file, then they join it', async () => {
    const sdkClient = client();
    const campaign = (await ctx.client.POST('/v1/campaigns', {
      body: { name: unique('SDK import campaign'), campaign_type: 'DISCOUNT_COUPONS', type: 'AUTO_UPDATE', voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 50 } } } as never,
    })).data!;
    const code = unique('SDK-CAMP');
    const items = [{ code, redemption: { quantity: 2 }, metadata: { lane: 'json' }, additional_info: 'campaign import', active: true }] satisfies Every<CampaignsImportVouchers>[];
    const started: AsyncActionCreateResponse = await sdkClient.campaigns.importVouchers(campaign.name!, items);
    expect(await finishedAction(ctx.client, started.async_action_id)).toMatchObject({ type: 'CAMPAIGN.VOUCHERS_IMPORT', result: { done_count: 1 } });
    expect(await voucher(code)).toMatchObject({ campaign_id: campaign.id, redemption: { quantity: 2 }, metadata: { lane: 'json' }, additional_info: 'campaign import', discount: { amount_off: 50 } });
    const fromFile = unique('SDK-CAMP-CSV');
    const fromCsv: AsyncActionCreateResponse = await sdkClient.campaigns.importVouchersCSV(campaign.id!, csvFile('campaign', ['code,metadata.lane', `${fromFile},csv`]));
    expect(await finishedAction(ctx.client, fromCsv.async_action_id)).toMatchObject({ type: 'CAMPAIGN.VOUCHERS_IMPORT_CSV', result: { done_count: 1 } });
    expect(await voucher(fromFile)).toMatchObject({ campaign_id: campaign.id, metadata: { lane: 'csv' } });
  });

  test('when customers, products, SKUs and orders are imported through the SDK, then they exist as sent', async () => {
    const sdkClient = client();
    const [customer, product, sku, order] = [unique('sdk-imp-cust'), unique('sdk-imp-prod'), unique('sdk-imp-sku'), unique('sdk-imp-order')];
    const customers: AsyncActionCreateResponse = await sdkClient.customers.importCSV(csvFile('customers', ['source_id,name,email,address_city', `${customer},SDK Person,${customer}@example.com,Oslo`]));
    expect(await finishedAction(ctx.client, customers.async_action_id)).toMatchObject({ type: 'CUSTOMERS.IMPORT_CSV', result: { done_count: 1 } });
    expect((await ctx.client.GET('/v1/customers/{customerId}', { params: { path: { customerId: customer } } })).data).toMatchObject({ name: 'SDK Person', address: { city: 'Oslo' } });

    const products: AsyncActionCreateResponse = await sdkClient.products.importCSV(csvFile('products', ['source_id,name,price,attributes', `${product},${unique('SDK beans')},1900,size`]));
    expect(await finishedAction(ctx.client, products.async_action_id)).toMatchObject({ type: 'PRODUCTS.IMPORT_CSV', result: { done_count: 1 } });
    const skus: AsyncActionCreateResponse = await sdkClient.products.importSkusCSV(csvFile('skus', ['product_id,source_id,sku,price,attributes.size', `${product},${sku},${unique('Large')},2100,L`]));
    expect(await finishedAction(ctx.client, skus.async_action_id)).toMatchObject({ type: 'SKUS.IMPORT_CSV', result: { done_count: 1 } });
    expect((await ctx.client.GET('/v1/skus/{skuId}', { params: { path: { skuId: sku } } })).data).toMatchObject({ price: 2100, attributes: { size: 'L' } });

    // Every field of an order but its customer and items, whose every field sdk-engine.test.ts sends to create-order.
    const fields = { source_id: order, status: 'PAID', amount: 3000, discount_amount: 0, metadata: { till: 'sdk' } } satisfies Every<Omit<OrdersCreate, 'customer' | 'items'>>;
    const orders: OrdersCreate[] = [{ ...fields, customer: { source_id: customer }, items: [{ source_id: product, related_object: 'product', quantity: 1, price: 3000 }] }];
    const imported: AsyncActionCreateResponse = await sdkClient.orders.import(orders);
    expect(await finishedAction(ctx.client, imported.async_action_id)).toMatchObject({ type: 'ORDERS.IMPORT', result: { done_count: 1, failed_count: 0 } });
    expect((await ctx.client.GET('/v1/orders/{orderId}', { params: { path: { orderId: order } } })).data).toMatchObject({ status: 'PAID', amount: 3000, metadata: { till: 'sdk' } });
  });
});

describe('@voucherify/sdk bulk jobs', () => {
  test("when vouchers', customers' and products' metadata is updated in bulk through the SDK, then each object has it", async () => {
    const sdkClient = client();
    const code = unique('SDK-BULK');
    await ctx.client.POST('/v1/vouchers/{code}', { params: { path: { code } }, body: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 1 }, metadata: { own: 1 } } });
    const bulk = [{ code, metadata: { shelf: 'A' } }] satisfies Every<VouchersBulkUpdate>;
    await finishedAction(ctx.client, (await sdkClient.vouchers.bulkUpdate(bulk)).async_action_id);
    const many = { codes: [code], metadata: { season: 'winter' } } satisfies Every<VouchersBulkUpdateMetadata>;
    await finishedAction(ctx.client, (await sdkClient.vouchers.bulkUpdateMetadata(many)).async_action_id);
    expect((await voucher(code)).metadata).toEqual({ own: 1, shelf: 'A', season: 'winter' });

    const sourceId = unique('sdk-bulk-cust');
    const customers = [
      {
        source_id: sourceId,
        name: 'Bulk Person',
        description: 'from the SDK',
        email: `${sourceId}@example.com`,
        phone: '+1 202 555 0100',
        birthdate: '1991-02-03',
        metadata: { plan: 'basic' },
        address: { city: 'Austin', state: 'TX', line_1: '1 Main St', line_2: 'Suite 2', country: 'US', postal_code: '73301' },
      },
    ] satisfies Every<CustomersUpdateInBulkRequestBody>;
    await finishedAction(ctx.client, (await sdkClient.customers.updateInBulk(customers)).async_action_id);
    const metadata = { source_ids: [sourceId], metadata: { plan: 'pro' } } satisfies Every<CustomersUpdateMetadataInBulkRequestBody>;
    await finishedAction(ctx.client, (await sdkClient.customers.updateMetadataInBulk(metadata)).async_action_id);
    expect((await ctx.client.GET('/v1/customers/{customerId}', { params: { path: { customerId: sourceId } } })).data).toMatchObject({
      name: 'Bulk Person',
      description: 'from the SDK',
      birthdate: '1991-02-03',
      address: { city: 'Austin', state: 'TX', line_1: '1 Main St', line_2: 'Suite 2', country: 'US', postal_code: '73301' },
      metadata: { plan: 'pro' },
    });

    const product = unique('sdk-bulk-prod');
    const products = [{ name: unique('SDK bulk'), source_id: product, price: 1200, attributes: ['size'], metadata: { a: 1 }, image_url: 'https://example.com/beans.png' }] satisfies Every<ProductsBulkUpdate>;
    await finishedAction(ctx.client, (await sdkClient.products.bulkUpdate(products)).async_action_id);
    const productMetadata = { source_ids: [product], metadata: { b: 2 } } satisfies Every<ProductsBulkUpdateMetadata>;
    await finishedAction(ctx.client, (await sdkClient.products.bulkUpdateMetadata(productMetadata)).async_action_id);
    expect((await ctx.client.GET('/v1/products/{productId}', { params: { path: { productId: product } } })).data).toMatchObject({
      price: 1200,
      attributes: ['size'],
      image_url: 'https://example.com/beans.png',
      metadata: { a: 1, b: 2 },
    });
  });
});

describe('@voucherify/sdk transactions', () => {
  test("when a gift card's and a loyalty card's transactions are listed and exported through the SDK, then they are the card's movements", async () => {
    const sdkClient = client();
    const code = unique('SDK-GIFT');
    await ctx.client.POST('/v1/vouchers/{code}', { params: { path: { code } }, body: { type: 'GIFT_VOUCHER', gift: { amount: 4000 } } });
    await ctx.client.POST('/v1/vouchers/{code}/balance', { params: { path: { code } }, body: { amount: -100, reason: 'sdk fee' } });
    await ctx.client.POST('/v1/vouchers/{code}/balance', { params: { path: { code } }, body: { amount: 700, reason: 'sdk top-up' } });
    const first: VouchersListTransactionsResponseBody = await sdkClient.vouchers.listTransactions(code, { limit: 1 });
    expect(first).toMatchObject({ object: 'list', data_ref: 'data', has_more: true, more_starting_after: first.data[0]!.id });
    // `page` is the SDK's deprecated paging, not the API's (which pages with the cursor): it is ignored.
    const query = { limit: 10, starting_after_id: first.more_starting_after!, order: '-id', page: 1 } satisfies Every<VouchersListTransactionsRequestQuery>;
    const rest: VouchersListTransactionsResponseBody = await sdkClient.vouchers.listTransactions(code, query);
    expect(rest.has_more).toBe(false);
    const cardId = (await voucher(code)).id;
    expect([...first.data, ...rest.data]).toEqual([
      expect.objectContaining({ type: 'CREDITS_ADDITION', reason: 'sdk top-up', voucher_id: cardId }),
      expect.objectContaining({ type: 'CREDITS_REMOVAL', reason: 'sdk fee', voucher_id: cardId }),
    ]);

    const body = { parameters: { order: '-created_at', fields: ['type', 'amount', 'balance'] } } satisfies Every<VouchersExportTransactionsRequestBody>;
    const exported: VouchersExportTransactionsResponseBody = await sdkClient.vouchers.exportTransactions(code, body);
    expect(exported).toMatchObject({ object: 'export', exported_object: 'voucher_transactions', status: 'SCHEDULED', result: null, parameters: { filters: { voucher_id: { conditions: { $in: [cardId] } } } } });
    const done = await finishedExport(ctx.client, exported.id);
    expect(csvRecords((await download(ctx.target, done.result!.url)).text)).toEqual([
      { type: 'CREDITS_ADDITION', amount: '700', balance: '4600' },
      { type: 'CREDITS_REMOVAL', amount: '-100', balance: '3900' },
    ]);

    const club = (await ctx.client.POST('/v1/loyalties', { body: { name: unique('SDK export club'), voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } } } })).data!;
    const card = (await ctx.client.POST('/v1/loyalties/{campaignId}/members', { params: { path: { campaignId: club.id! } }, body: { customer: { source_id: unique('sdk-member') } } })).data!;
    await ctx.client.POST('/v1/loyalties/members/{memberId}/balance', { params: { path: { memberId: card.code! } }, body: { points: 25 } });
    for (const campaignId of [null, club.id!]) {
      const cardExport: VouchersExportTransactionsResponseBody = await sdkClient.loyalties.exportCardTransactions(card.code!, campaignId, body);
      const finished = await finishedExport(ctx.client, cardExport.id);
      expect(csvRecords((await download(ctx.target, finished.result!.url)).text)).toEqual([{ type: 'POINTS_ADDITION', amount: '25', balance: '25' }]);
    }
  });
});

describe('@voucherify/sdk: coverage', () => {
  test('every method of the SDK that reaches an export, import, bulk job, async action list or transaction operation was called', () => {
    const expected = dataMethods('@voucherify/sdk');
    expect(expected.length).toBeGreaterThan(20);
    expect(expected.filter((name) => !calls.has(name))).toEqual([]);
  });
});
