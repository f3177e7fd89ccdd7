/**
 * Imports: CSV files (multipart) of vouchers, campaign vouchers, customers, products and SKUs, and JSON lists of
 * vouchers and orders. Each runs as an async action; a bad row is reported by its line and column and leaves
 * nothing behind, and the other rows are imported, each as the single create operation would make it.
 */
import { describe, expect, test } from '@jest/globals';
import { expectError, failed } from './expect-error.js';
import { finishedAction, upload } from './data-helpers.js';
import { raw, recordingFetch, unique, useTarget } from './target.js';

const ctx = useTarget();

type Reference = { async_action_id: string };

async function voucherOf(code: string) {
  return ctx.client.GET('/v1/vouchers/{code}', { params: { path: { code } } });
}

/** Uploads a file, checks the status and returns the finished async action. */
async function imported(path: string, csv: string, status = 202, fields: Record<string, string> = {}) {
  const sent = await upload(ctx.target, path, csv, fields);
  expect(sent.status).toBe(status);
  expect(sent.body).toEqual({ async_action_id: expect.stringMatching(/^aa_/) });
  return finishedAction(ctx.client, (sent.body as Reference).async_action_id);
}

describe('imports', () => {
  test('when a voucher file has a bad row, then that row is reported by line and column, nothing of it is kept, and the other rows are imported', async () => {
    const [good, giftCode, badPercent, badDate, taken] = ['OK', 'GIFT', 'BADP', 'BADD', 'TAKEN'].map((name) => unique(`CSV-${name}`));
    await ctx.client.POST('/v1/vouchers/{code}', { params: { path: { code: taken! } }, body: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 1 } } });
    const csv = [
      'Code,Voucher Type,Discount Type,Value,Expiration Date,Redemption Limit,Active,Additional Info,metadata.batch,Printed',
      `${good},DISCOUNT_VOUCHER,PERCENT,15,2030-06-30,2,true,"Handed out at the door, ""VIP"" only",spring,yes`,
      `${badPercent},DISCOUNT_VOUCHER,PERCENT,150,,,,,spring,`,
      `${giftCode},GIFT_VOUCHER,,5000,,,false,"two`,
      `lines",spring,`,
      `${badDate},,AMOUNT,300,not a date,,,,spring,`,
      `${taken},,AMOUNT,300,,,,,spring,`,
    ].join('\n');
    const action = await imported('/v1/vouchers/importCSV', csv);
    expect(action).toMatchObject({ type: 'VOUCHERS.IMPORT_CSV', status: 'DONE', operation_status: 'SUCCESS', progress: 100 });
    expect(action.result).toMatchObject({ done_count: 2, failed_count: 3 });
    expect(action.result!.failed).toEqual([
      { row: 3, code: badPercent, field: 'value', reason: expect.stringContaining('100') },
      { row: 6, code: badDate, field: 'expiration_date', reason: expect.stringContaining('date-time') },
      { row: 7, code: taken, field: 'code', reason: expect.stringContaining('already exists') },
    ]);
    expect((await voucherOf(good!)).data).toMatchObject({
      type: 'DISCOUNT_VOUCHER',
      discount: { type: 'PERCENT', percent_off: 15 },
      expiration_date: '2030-06-30T23:59:59.999Z',
      redemption: { quantity: 2 },
      active: true,
      additional_info: 'Handed out at the door, "VIP" only',
      metadata: { batch: 'spring', printed: 'yes' },
    });
    expect((await voucherOf(giftCode!)).data).toMatchObject({ type: 'GIFT_VOUCHER', gift: { amount: 5000, balance: 5000 }, active: false, additional_info: 'two\nlines' });
    for (const code of [badPercent!, badDate!]) expectError(failed(await voucherOf(code)), 404, 'not_found');
  });

  test('when a line has more or fewer fields than the header, then that line is reported and the others are imported', async () => {
    const [ok, wide, narrow] = ['OK', 'WIDE', 'NARROW'].map((name) => unique(`CSV-${name}`));
    const action = await imported('/v1/vouchers/importCSV', `code,value\n${ok},100\n${wide},100,extra\n${narrow}\n`);
    expect(action.result).toMatchObject({ done_count: 1, failed_count: 2 });
    expect(action.result!.failed).toEqual([
      { row: 3, code: wide, reason: 'The line has 3 fields, the header 2' },
      { row: 4, code: narrow, reason: 'The line has 1 fields, the header 2' },
    ]);
    expect((await voucherOf(ok!)).data).toMatchObject({ discount: { type: 'AMOUNT', amount_off: 100 } });
  });

  test('when a voucher file names a category the project does not have, then the category is made and the voucher is in it; a known one is reused', async () => {
    const [fresh, known] = [unique('Imported category'), unique('Known category')];
    const existing = (await ctx.client.POST('/v1/categories', { body: { name: known, hierarchy: 3 } })).data!;
    const [first, second, third] = ['A', 'B', 'C'].map((name) => unique(`CSV-CAT-${name}`));
    const action = await imported('/v1/vouchers/importCSV', `code,value,category\n${first},100,${fresh}\n${second},100,${fresh}\n${third},100,${known}\n`);
    expect(action.result).toMatchObject({ done_count: 3, failed_count: 0 });
    const made = (await ctx.client.GET('/v1/categories')).data!.data.filter((category) => category.name === fresh);
    expect(made).toEqual([expect.objectContaining({ name: fresh, hierarchy: 0 })]);
    for (const code of [first!, second!]) expect((await voucherOf(code)).data).toMatchObject({ category: fresh, category_id: made[0]!.id });
    expect((await voucherOf(third!)).data).toMatchObject({ category: known, category_id: existing.id });
  });

  test('when a file cannot be read or lacks what it needs, then it is refused with 400 before any work starts', async () => {
    const before = (await ctx.client.GET('/v1/async-actions', { params: { query: { limit: 1 } } })).data!.async_actions![0]?.id;
    expectError(await upload(ctx.target, '/v1/vouchers/importCSV', 'value,category\n100,x\n'), 400, 'invalid_payload');
    expectError(await upload(ctx.target, '/v1/vouchers/importCSV', 'code,value\nA,"100\n'), 400, 'invalid_payload');
    expectError(await upload(ctx.target, '/v1/vouchers/importCSV', ''), 400, 'invalid_payload');
    expectError(await upload(ctx.target, '/v1/customers/importCSV', 'name\nAda\n'), 400, 'invalid_payload');
    expectError(await upload(ctx.target, '/v1/skus/importCSV', 'sku\nBlue\n'), 400, 'invalid_payload');
    // A NUL in a cell: no store keeps one, so the file is refused naming its line.
    const nul = expectError(await upload(ctx.target, '/v1/customers/importCSV', 'source_id,name\nc-ok,Ada\nc-nul,Gr\u0000ace\n'), 400, 'invalid_payload');
    expect(nul.details).toContain('line 3');
    // Not multipart, or multipart without the file.
    expectError(await raw(ctx.target, 'POST', '/v1/vouchers/importCSV', { body: '{"file":"code\\nA"}' }), 415, 'unsupported_media_type');
    const noFile = new FormData();
    noFile.append('webhooks_enable', 'true');
    const sent = await recordingFetch(`${ctx.target.baseUrl}/v1/vouchers/importCSV`, {
      method: 'POST',
      headers: { 'X-App-Id': ctx.target.credentials.appId, 'X-App-Token': ctx.target.credentials.appToken },
      body: noFile,
    });
    expect(sent.status).toBe(400);
    expect((await ctx.client.GET('/v1/async-actions', { params: { query: { limit: 1 } } })).data!.async_actions![0]?.id).toBe(before);
  });

  test('when a multipart body is cut short or malformed, then 400 in the error shape, and no work starts', async () => {
    const before = (await ctx.client.GET('/v1/async-actions', { params: { query: { limit: 1 } } })).data!.async_actions![0]?.id;
    const boundary = 'cut-short-boundary';
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="import.csv"\r\nContent-Type: text/csv\r\n\r\ncode,value\nA,100\n`;
    for (const body of [head, `--${boundary}\r\nContent-Disposition form-data\r\n\r\nx\r\n--${boundary}--\r\n`]) {
      const sent = await raw(ctx.target, 'POST', '/v1/vouchers/importCSV', { body, contentType: `multipart/form-data; boundary=${boundary}` });
      expectError(sent, 400, 'invalid_payload');
    }
    expect((await ctx.client.GET('/v1/async-actions', { params: { query: { limit: 1 } } })).data!.async_actions![0]?.id).toBe(before);
  });

  test('when a file is larger than 10 MB, then it is refused with 413', async () => {
    const line = `${'X'.repeat(60)},100\n`;
    const big = `code,value\n${line.repeat(Math.ceil((10 * 1024 * 1024) / line.length) + 10)}`;
    expect((await upload(ctx.target, '/v1/vouchers/importCSV', big)).status).toBe(413);
    // Just under the limit is taken.
    const fits = `code,value\n${unique('FITS')},100\n${'#'.repeat(1000)}\n`;
    expect((await upload(ctx.target, '/v1/vouchers/importCSV', fits)).status).toBe(202);
  });

  test('when vouchers are imported as JSON, then each is made as create-voucher makes it, and a taken code is reported by position', async () => {
    const [first, second] = [unique('JSON-A'), unique('JSON-B')];
    const sent = await ctx.client.POST('/v1/vouchers/import', {
      body: [
        { code: first, type: 'GIFT_VOUCHER', gift: { amount: 2500, balance: 999 }, metadata: { source: 'json' } },
        { code: second, discount: { type: 'AMOUNT', amount_off: 300 }, validity_day_of_week: [1, 2] },
        { code: first, discount: { type: 'AMOUNT', amount_off: 300 } },
      ],
    });
    expect(sent.response.status).toBe(202);
    const action = await finishedAction(ctx.client, sent.data!.async_action_id!);
    expect(action).toMatchObject({ type: 'VOUCHERS.IMPORT', result: { done_count: 2, failed_count: 1, failed: [{ row: 3, code: first, field: 'code' }] } });
    // A gift's balance is the service's: it starts at the amount, whatever the import said.
    expect((await voucherOf(first)).data).toMatchObject({ gift: { amount: 2500, balance: 2500 }, metadata: { source: 'json' } });
    expect((await voucherOf(second)).data).toMatchObject({ type: 'DISCOUNT_VOUCHER', validity_day_of_week: [1, 2] });
    expectError(failed(await ctx.client.POST('/v1/vouchers/import', { body: [] })), 400, 'invalid_payload');
    expectError(failed(await ctx.client.POST('/v1/vouchers/import', { body: [{ discount: { type: 'AMOUNT', amount_off: 1 } }] as never })), 400, 'invalid_payload');
  });

  test("when vouchers are imported into a campaign, then they join it with its template, and a campaign that cannot take them is refused", async () => {
    const campaign = (await ctx.client.POST('/v1/campaigns', {
      body: { name: unique('Import campaign'), campaign_type: 'DISCOUNT_COUPONS', type: 'AUTO_UPDATE', voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'PERCENT', percent_off: 20 } } } as never,
    })).data!;
    const [json, csvDefault, csvOwn] = [unique('CAMP-J'), unique('CAMP-C'), unique('CAMP-O')];
    const sent = await ctx.client.POST('/v1/campaigns/{campaignId}/import', { params: { path: { campaignId: campaign.id! } }, body: [{ code: json, metadata: { printed: true } }] });
    expect(sent.response.status).toBe(202);
    expect(await finishedAction(ctx.client, sent.data!.async_action_id!)).toMatchObject({ type: 'CAMPAIGN.VOUCHERS_IMPORT', result: { done_count: 1, failed_count: 0 } });
    const action = await imported(`/v1/campaigns/${campaign.id}/importCSV`, `code,discount_type,value\n${csvDefault},,\n${csvOwn},AMOUNT,250\n`, 200);
    expect(action).toMatchObject({ type: 'CAMPAIGN.VOUCHERS_IMPORT_CSV', result: { done_count: 2, failed_count: 0 } });
    for (const code of [json, csvDefault]) expect((await voucherOf(code)).data).toMatchObject({ campaign_id: campaign.id, discount: { type: 'PERCENT', percent_off: 20 } });
    expect((await voucherOf(json)).data?.metadata).toEqual({ printed: true });
    expect((await voucherOf(csvOwn)).data).toMatchObject({ campaign_id: campaign.id, discount: { type: 'AMOUNT', amount_off: 250 } });

    const fixed = (await ctx.client.POST('/v1/campaigns', {
      body: { name: unique('Static campaign'), campaign_type: 'DISCOUNT_COUPONS', type: 'STATIC', voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 1 } } } as never,
    })).data!;
    const refused = await ctx.client.POST('/v1/campaigns/{campaignId}/import', { params: { path: { campaignId: fixed.id! } }, body: [{ code: unique('NO') }] });
    expectError(failed(refused), 400, 'invalid_campaign_params');
    expectError(await upload(ctx.target, `/v1/campaigns/${fixed.id}/importCSV`, 'code\nX\n'), 400, 'invalid_campaign_params');
    expectError(await upload(ctx.target, '/v1/campaigns/camp_000000000000000000/importCSV', 'code\nX\n'), 404, 'not_found');
  });

  test('when customers are imported, then new ones are made and known ones updated by source_id, and a bad email is reported', async () => {
    const [known, fresh, bad] = [unique('imp-known'), unique('imp-new'), unique('imp-bad')];
    await ctx.client.POST('/v1/customers', { body: { source_id: known, name: 'Old Name', phone: '+48 1' } });
    const csv = [
      'source_id,name,email,address_city,address_postal_code,birthdate,segment',
      `${known},New Name,${known}@example.com,Gdańsk,80-001,,gold`,
      `${fresh},"Doe, Jane",${fresh}@example.com,,,1990-04-01,silver`,
      `${bad},Bad,not-an-email,,,,`,
    ].join('\n');
    const action = await imported('/v1/customers/importCSV', csv);
    expect(action).toMatchObject({ type: 'CUSTOMERS.IMPORT_CSV', result: { done_count: 2, failed_count: 1, failed: [{ row: 4, source_id: bad, field: 'email' }] } });
    const customer = async (sourceId: string) => ctx.client.GET('/v1/customers/{customerId}', { params: { path: { customerId: sourceId } } });
    expect((await customer(known)).data).toMatchObject({ name: 'New Name', phone: '+48 1', email: `${known}@example.com`, address: { city: 'Gdańsk', postal_code: '80-001' }, metadata: { segment: 'gold' } });
    expect((await customer(fresh)).data).toMatchObject({ name: 'Doe, Jane', birthdate: '1990-04-01', metadata: { segment: 'silver' } });
    expectError(failed(await customer(bad)), 404, 'not_found');
  });

  test('when products and their SKUs are imported, then they exist with their attributes, and an unknown product is reported', async () => {
    const product = unique('imp-product');
    const products = await imported('/v1/products/importCSV', `source_id,name,price,attributes,origin\n${product},${unique('Beans')},2000,"size, grind",Kenya\n${unique('imp-bad')},${unique('Bad')},lots,,\n`, 200);
    expect(products).toMatchObject({ type: 'PRODUCTS.IMPORT_CSV', result: { done_count: 1, failed_count: 1, failed: [{ row: 3, field: 'price' }] } });
    const made = (await ctx.client.GET('/v1/products/{productId}', { params: { path: { productId: product } } })).data!;
    expect(made).toMatchObject({ price: 2000, attributes: ['size', 'grind'], metadata: { origin: 'Kenya' } });
    const sku = unique('imp-sku');
    const skus = await imported('/v1/skus/importCSV', `product_id,source_id,sku,price,currency,attributes.size\n${product},${sku},${unique('Big')},2500,EUR,1 kg\nprod_000000000000000000,${unique('lost')},Lost,1,EUR,\n`, 200);
    expect(skus).toMatchObject({ type: 'SKUS.IMPORT_CSV', result: { done_count: 1, failed_count: 1, failed: [{ row: 3, field: 'product_id' }] } });
    expect((await ctx.client.GET('/v1/skus/{skuId}', { params: { path: { skuId: sku } } })).data).toMatchObject({ product_id: made.id, price: 2500, currency: 'EUR', attributes: { size: '1 kg' } });
  });

  test('when orders are imported, then each is made as create-order makes it, and one that fails leaves not even its new customer behind', async () => {
    const [buyer, ghost, first, second] = [unique('imp-buyer'), unique('imp-ghost'), unique('imp-order'), unique('imp-order')];
    const sent = await ctx.client.POST('/v1/orders/import', {
      body: [
        { source_id: first, status: 'PAID', amount: 12000, customer: { source_id: buyer, name: 'Buyer' }, metadata: { channel: 'store' } },
        { source_id: second, amount: 500, customer: { source_id: ghost }, referrer_id: 'cust_000000000000000000' },
      ],
    });
    expect(sent.response.status).toBe(200);
    const action = await finishedAction(ctx.client, sent.data!.async_action_id!);
    expect(action).toMatchObject({ type: 'ORDERS.IMPORT', result: { done_count: 1, failed_count: 1, failed: [{ row: 2, source_id: second }] } });
    const order = (await ctx.client.GET('/v1/orders/{orderId}', { params: { path: { orderId: first } } })).data!;
    expect(order).toMatchObject({ status: 'PAID', amount: 12000, metadata: { channel: 'store' }, customer_id: expect.stringMatching(/^cust_/) });
    expectError(failed(await ctx.client.GET('/v1/orders/{orderId}', { params: { path: { orderId: second } } })), 404, 'not_found');
    expectError(failed(await ctx.client.GET('/v1/customers/{customerId}', { params: { path: { customerId: ghost } } })), 404, 'not_found');
  });

  test('when async actions are listed, then the newest come first without results, and end_date pages back', async () => {
    const kicks = [];
    for (let i = 0; i < 3; i++) {
      const sent = await ctx.client.POST('/v1/vouchers/import', { body: [{ code: unique('LIST'), discount: { type: 'AMOUNT', amount_off: 1 } }] });
      kicks.push(sent.data!.async_action_id!);
      await finishedAction(ctx.client, sent.data!.async_action_id!);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const page = (await ctx.client.GET('/v1/async-actions', { params: { query: { limit: 2 } } })).data!;
    expect(page).toMatchObject({ object: 'list', data_ref: 'async_actions', has_more: true });
    expect(page.async_actions!.map((action) => action.id)).toEqual([kicks[2], kicks[1]]);
    expect(page.async_actions![0]).toEqual({
      id: kicks[2], type: 'VOUCHERS.IMPORT', status: 'DONE', operation_status: 'SUCCESS', created_at: expect.any(String), updated_at: expect.any(String),
      request_id: expect.any(String), processing_time: expect.any(Number), progress: 100, object: 'async_action',
    });
    const older = (await ctx.client.GET('/v1/async-actions', { params: { query: { limit: 1, end_date: page.async_actions![1]!.created_at! } } })).data!;
    expect(older.async_actions!.map((action) => action.id)).toEqual([kicks[0]]);
    expectError(await raw(ctx.target, 'GET', '/v1/async-actions?limit=0'), 400, 'invalid_query_params');
    expectError(await raw(ctx.target, 'GET', '/v1/async-actions?end_date=yesterday'), 400, 'invalid_query_params');
  });
});
