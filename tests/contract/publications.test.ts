import { describe, expect, test } from '@jest/globals';
import { expectError, failed } from './expect-error.js';
import { raw, unique, useTarget } from './target.js';

const ctx = useTarget();

describe('publications', () => {
  test('when codes are published until the campaign runs out, then the last free code goes and then none', async () => {
    const campaign = (
      await ctx.client.POST('/v1/campaigns', {
        body: { name: unique('Publish'), campaign_type: 'DISCOUNT_COUPONS', type: 'STATIC', voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } }, vouchers_count: 2 },
      })
    ).data!;
    const sourceId = unique('pub-customer');
    const first = await ctx.client.POST('/v1/publications', { body: { customer: { source_id: sourceId, name: 'New Person' }, campaign: { name: campaign.name! }, metadata: { via: 'test' } } });
    expect(first.response.status).toBe(200);
    const customer = (await ctx.client.GET('/v1/customers/{customerId}', { params: { path: { customerId: sourceId } } })).data!;
    expect(customer.name).toBe('New Person');
    expect(first.data).toMatchObject({
      id: expect.stringMatching(/^pub_/),
      customer_id: customer.id,
      campaign_id: campaign.id,
      result: 'SUCCESS',
      metadata: { via: 'test' },
      voucher: { holder_id: customer.id, publish: { count: 1 } },
      object: 'publication',
    });
    const last = await ctx.client.POST('/v1/publications', { body: { customer: { id: customer.id }, campaign: { name: campaign.id! } } });
    expect(last.data?.voucher_code).not.toBe(first.data?.voucher_code);
    const none = await ctx.client.POST('/v1/publications', { body: { customer: { id: customer.id }, campaign: { name: campaign.name! } } });
    expectError(failed(none), 400, 'no_voucher_suitable_for_publication');
    const held = await ctx.client.GET('/v1/vouchers', { params: { query: { customer: sourceId, order: 'code' } } });
    expect(held.data?.vouchers?.map((v) => v.code).sort()).toEqual([first.data!.voucher_code, last.data!.voucher_code].sort());
    const summary = (await ctx.client.GET('/v1/campaigns/{campaignId}/summary', { params: { path: { campaignId: campaign.id! } } })).data!;
    expect(summary).toMatchObject({ publications: 3, publications_succeeded: 2, publications_failed: 1 });
    const listed = await ctx.client.GET('/v1/publications', { params: { query: { campaign: campaign.name, order: 'created_at' } } });
    expect(listed.data?.publications.map((p) => p.id)).toEqual([first.data!.id, last.data!.id]);
    expect(listed.data?.total).toBe(2);
  });

  test('when an AUTO_UPDATE campaign has no free voucher, then publishing makes new ones from its code config for the publication', async () => {
    const campaign = (
      await ctx.client.POST('/v1/campaigns', {
        body: {
          name: unique('AutoPublish'),
          campaign_type: 'DISCOUNT_COUPONS',
          type: 'AUTO_UPDATE',
          voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 }, code_config: { prefix: 'AUTO-', length: 6 } },
          vouchers_count: 1,
        },
      })
    ).data!;
    const customer = (await ctx.client.POST('/v1/customers', { body: { source_id: unique('auto-pub') } })).data!;
    const first = await ctx.client.POST('/v1/publications', { body: { customer: { id: customer.id }, campaign: { name: campaign.name! } } });
    const made = await ctx.client.POST('/v1/publications', { body: { customer: { id: customer.id }, campaign: { name: campaign.id! } } });
    expect(made.response.status).toBe(200);
    expect(made.data).toMatchObject({ result: 'SUCCESS', campaign_id: campaign.id, voucher: { campaign_id: campaign.id, holder_id: customer.id, discount: { amount_off: 100 } } });
    expect(made.data!.voucher_code).toMatch(/^AUTO-/);
    expect(made.data!.voucher_code).not.toBe(first.data!.voucher_code);
    const many = await ctx.client.POST('/v1/publications', { body: { customer: { id: customer.id }, campaign: { name: campaign.id!, count: 2 } } });
    expect(many.data?.vouchers).toHaveLength(2);
    expect((await ctx.client.GET('/v1/campaigns/{campaignId}', { params: { path: { campaignId: campaign.id! } } })).data?.vouchers_count).toBe(4);
  });

  test('when a code is published with campaign: null, as the published SDKs send it, then it is published; both null or both given is a 400', async () => {
    const code = unique('PUBNULL');
    await ctx.client.POST('/v1/vouchers/{code}', { params: { path: { code } }, body: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } } });
    const customer = { source_id: unique('pub-null') };
    const published = await raw(ctx.target, 'POST', '/v1/publications', { body: JSON.stringify({ customer, voucher: code, campaign: null }) });
    expect(published.status).toBe(200);
    expect(published.body).toMatchObject({ result: 'SUCCESS', voucher: { code } });
    expectError(await raw(ctx.target, 'POST', '/v1/publications', { body: JSON.stringify({ customer, voucher: null, campaign: null }) }), 400, 'invalid_publish_params');
    expectError(await raw(ctx.target, 'POST', '/v1/publications', { body: JSON.stringify({ customer, voucher: code, campaign: { name: 'any' } }) }), 400, 'invalid_publish_params');
  });

  test('when a specific code is published, then the same customer may get it again but another may not', async () => {
    const code = unique('PUBCODE');
    await ctx.client.POST('/v1/vouchers/{code}', { params: { path: { code } }, body: { type: 'GIFT_VOUCHER', gift: { amount: 1000 } } });
    const owner = (await ctx.client.POST('/v1/customers', { body: { source_id: unique('owner') } })).data!;
    const other = (await ctx.client.POST('/v1/customers', { body: { source_id: unique('other') } })).data!;
    expect((await ctx.client.POST('/v1/publications', { body: { customer: { id: owner.id }, voucher: code } })).response.status).toBe(200);
    const again = await ctx.client.POST('/v1/publications', { body: { customer: { id: owner.id }, voucher: code } });
    expect(again.data?.voucher?.publish?.count).toBe(2);
    expectError(failed(await ctx.client.POST('/v1/publications', { body: { customer: { id: other.id }, voucher: code } })), 400, 'invalid_publish_params');
    const afterOwner = (await ctx.client.GET('/v1/customers/{customerId}', { params: { path: { customerId: owner.id! } } })).data!;
    expect(afterOwner.summary?.redemptions.gift.amount_to_go).toBe(1000);
  });

  test('when the input is incomplete or names nothing, then 4xx', async () => {
    expectError(await raw(ctx.target, 'POST', '/v1/publications', { body: JSON.stringify({ customer: { source_id: 'x' } }) }), 400, 'invalid_publish_params');
    expectError(await raw(ctx.target, 'POST', '/v1/publications', { body: JSON.stringify({ voucher: 'X' }) }), 400, 'invalid_payload');
    expectError(await raw(ctx.target, 'POST', '/v1/publications', { body: JSON.stringify({ customer: {}, voucher: 'X' }) }), 400, 'invalid_customer');
    expectError(await raw(ctx.target, 'POST', '/v1/publications', { body: JSON.stringify({ customer: { id: 'cust_nope' }, voucher: 'X' }) }), 404, 'not_found');
    expectError(await raw(ctx.target, 'POST', '/v1/publications', { body: JSON.stringify({ customer: { source_id: unique('c') }, campaign: { name: 'no such campaign' } }) }), 404, 'not_found');
    expectError(await raw(ctx.target, 'GET', '/v1/publications?limit=0'), 400, 'invalid_query_params');
  });

  test('when the customer is named only by details, then it is created and the publication shows it', async () => {
    const code = unique('PUBNEW');
    await ctx.client.POST('/v1/vouchers/{code}', { params: { path: { code } }, body: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } } });
    const email = `${unique('fresh')}@example.com`;
    const published = await ctx.client.POST('/v1/publications', { body: { customer: { name: 'Hedy Lamarr', email }, voucher: code, channel: null, metadata: null } });
    expect(published.response.status).toBe(200);
    expect(published.data).toMatchObject({
      customer_id: expect.stringMatching(/^cust_/),
      customer: { name: 'Hedy Lamarr', email, object: 'customer' },
      channel: 'API',
      metadata: {},
      source_id: null,
      vouchers_id: [expect.stringMatching(/^v_/)],
      voucher: { code, holder_id: published.data!.customer_id },
    });
    expect(published.data).not.toHaveProperty('vouchers');
  });

  test('when a publication repeats a source_id, asks join_once or a count, then it answers as the public API does', async () => {
    const campaign = (
      await ctx.client.POST('/v1/campaigns', {
        body: { name: unique('PubMany'), campaign_type: 'DISCOUNT_COUPONS', type: 'STATIC', voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } }, vouchers_count: 5 },
      })
    ).data!;
    const customer = (await ctx.client.POST('/v1/customers', { body: { source_id: unique('pub-many') } })).data!;
    const sourceId = unique('newsletter');
    const once = await ctx.client.POST('/v1/publications', { body: { customer: { id: customer.id }, campaign: { name: campaign.name! }, source_id: sourceId } });
    const twice = await ctx.client.POST('/v1/publications', { body: { customer: { id: customer.id }, campaign: { name: campaign.name! }, source_id: sourceId } });
    expect(twice.data).toMatchObject({ id: once.data!.id, source_id: sourceId, voucher: { code: once.data!.voucher_code } });
    const stranger = (await ctx.client.POST('/v1/customers', { body: { source_id: unique('stranger') } })).data!;
    expectError(failed(await ctx.client.POST('/v1/publications', { body: { customer: { id: stranger.id }, campaign: { name: campaign.name! }, source_id: sourceId } })), 400, 'invalid_publish_params');

    const joined = await ctx.client.POST('/v1/publications', { params: { query: { join_once: true } }, body: { customer: { id: customer.id }, campaign: { name: campaign.name! } } });
    expect(joined.data?.id).toBe(once.data!.id);

    const many = await ctx.client.POST('/v1/publications', { body: { customer: { id: customer.id }, campaign: { name: campaign.name!, count: 3 } } });
    expect(many.response.status).toBe(200);
    expect(many.data?.vouchers).toHaveLength(3);
    expect(many.data?.vouchers_id).toHaveLength(3);
    expect(many.data).not.toHaveProperty('voucher');
    expectError(failed(await ctx.client.POST('/v1/publications', { body: { customer: { id: customer.id }, campaign: { name: campaign.name!, count: 2 } } })), 400, 'no_voucher_suitable_for_publication');
    const held = await ctx.client.GET('/v1/vouchers', { params: { query: { customer: customer.id } } });
    expect(held.data?.total).toBe(4);
    // The publication list finds them by any of their codes.
    const byCode = await ctx.client.GET('/v1/publications', { params: { query: { voucher: many.data!.vouchers![2]! } } });
    expect(byCode.data?.publications.map((p) => p.id)).toEqual([many.data!.id]);
  });

  test('when the list is filtered, then only matching publications come back, each with its customer and a short voucher', async () => {
    const customer = (await ctx.client.POST('/v1/customers', { body: { source_id: unique('pub-list'), name: 'Listed' } })).data!;
    const discount = unique('PUBD');
    const gift = unique('PUBG');
    await ctx.client.POST('/v1/vouchers/{code}', { params: { path: { code: discount } }, body: { type: 'DISCOUNT_VOUCHER', discount: { type: 'PERCENT', percent_off: 5 } } });
    await ctx.client.POST('/v1/vouchers/{code}', { params: { path: { code: gift } }, body: { type: 'GIFT_VOUCHER', gift: { amount: 500 } } });
    const sourceId = unique('pub-src');
    const first = (await ctx.client.POST('/v1/publications', { body: { customer: { id: customer.id }, voucher: discount, source_id: sourceId } })).data!;
    const second = (await ctx.client.POST('/v1/publications', { body: { customer: { id: customer.id }, voucher: gift } })).data!;
    const list = (query: string) => raw(ctx.target, 'GET', `/v1/publications?customer=${customer.id}&${query}`);
    const ids = (response: { body?: unknown }) => (response.body as { publications: { id: string }[] }).publications.map((p) => p.id);

    const all = await list('order=created_at');
    expect(ids(all)).toEqual([first.id, second.id]);
    expect((all.body as { publications: unknown[] }).publications[0]).toMatchObject({
      customer: { id: customer.id, name: 'Listed', object: 'customer' },
      voucher: { code: discount, object: 'voucher', campaign: null, discount: { type: 'PERCENT', percent_off: 5 }, gift: null, is_referral_code: false },
    });
    expect(ids(await list('voucher_type=discount'))).toEqual([first.id]);
    expect(ids(await list(`source_id=${sourceId}`))).toEqual([first.id]);
    expect(ids(await list('result=FAILURE'))).toEqual([]);
    expect(ids(await list('is_referral_code=false&order=-created_at'))).toEqual([second.id, first.id]);
    expect(ids(await list(`filters[related_object_id][conditions][$is]=${second.vouchers_id[0]}`))).toEqual([second.id]);
    expect(ids(await list('filters[voucher_type][conditions][$in][]=GIFT_VOUCHER&filters[voucher_type][conditions][$in][]=LOYALTY_CARD'))).toEqual([second.id]);
    expect(ids(await list(`filters[junction]=or&filters[source_id][conditions][$is]=${sourceId}&filters[voucher_type][conditions][$is]=GIFT_VOUCHER&order=created_at`))).toEqual([first.id, second.id]);
    expectError(await list('filters[amount][conditions][$is]=1'), 400, 'invalid_query_params');
    expectError(await list('filters[source_id][conditions][$near]=x'), 400, 'invalid_query_params');
  });

  test('when the list is filtered by campaign name, then a publication without a campaign reads it as none', async () => {
    const name = unique('PubNamed');
    await ctx.client.POST('/v1/campaigns', { body: { name, campaign_type: 'DISCOUNT_COUPONS', type: 'STATIC', voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } }, vouchers_count: 2 } });
    const customer = (await ctx.client.POST('/v1/customers', { body: { source_id: unique('pub-named') } })).data!;
    const standalone = unique('PUBS');
    await ctx.client.POST('/v1/vouchers/{code}', { params: { path: { code: standalone } }, body: { type: 'DISCOUNT_VOUCHER', discount: { type: 'PERCENT', percent_off: 5 } } });
    const fromCampaign = (await ctx.client.POST('/v1/publications', { body: { customer: { id: customer.id }, campaign: { name } } })).data!;
    const alone = (await ctx.client.POST('/v1/publications', { body: { customer: { id: customer.id }, voucher: standalone } })).data!;
    const ids = async (filter: string) => {
      const response = await raw(ctx.target, 'GET', `/v1/publications?customer=${customer.id}&order=created_at&${filter}`);
      expect(response.status).toBe(200);
      return (response.body as { publications: { id: string }[] }).publications.map((p) => p.id);
    };
    expect(await ids(`filters[campaign_name][conditions][$is]=${name}`)).toEqual([fromCampaign.id]);
    expect(await ids(`filters[campaign_name][conditions][$starts_with]=${name.slice(0, 8)}`)).toEqual([fromCampaign.id]);
    // No campaign: the name reads as none, which is not this name, and is unknown.
    expect(await ids(`filters[campaign_name][conditions][$is_not]=${name}`)).toEqual([alone.id]);
    expect(await ids('filters[campaign_name][conditions][$is_unknown]=true')).toEqual([alone.id]);
    expect(await ids('filters[campaign_name][conditions][$has_value]=true')).toEqual([fromCampaign.id]);
    expect(await ids(`filters[junction]=or&filters[campaign_name][conditions][$is]=${name}&filters[voucher_type][conditions][$is]=DISCOUNT_VOUCHER`)).toEqual([fromCampaign.id, alone.id]);
  });
});

