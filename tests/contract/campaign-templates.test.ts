import { describe, expect, test } from '@jest/globals';
import type { components } from '../../generated/openapi.js';
import { expectError, failed } from './expect-error.js';
import { known } from './known.js';
import { because, clientFor, managementClientFor, raw, skip, unique, useTarget } from './target.js';

const ctx = useTarget();

type TemplatePage = components['schemas']['TemplatesCampaignsListResponseBody'];

const minimumRule = {
  name: 'Orders of 50.00 and more',
  rules: { '1': { name: 'order.amount' as const, conditions: { $more_than_or_equal: [5000] } }, logic: '1' },
  error: { message: 'Spend at least 50.00' },
};

async function rule() {
  const made = await ctx.client.POST('/v1/validation-rules', { body: minimumRule });
  expect(made.response.status).toBe(200);
  return made.data!;
}

async function discountCampaign(extra: Record<string, unknown> = {}) {
  const result = await ctx.client.POST('/v1/campaigns', {
    body: {
      name: unique('Template source'),
      campaign_type: 'DISCOUNT_COUPONS',
      voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'PERCENT', percent_off: 15 }, redemption: { quantity: 3 }, code_config: { pattern: 'SRC-####' } },
      ...extra,
    } as never,
  });
  expect(result.response.status).toBe(200);
  return known(result.data, 'id', 'name');
}

async function template(body: { name?: string; campaign_id?: string; promotion_tier_id?: string; description?: string | null }) {
  const result = await ctx.client.POST('/v1/templates/campaigns', { body: { name: unique('Template'), ...body } });
  expect(result.response.status).toBe(200);
  return result.data!;
}

async function codesOf(campaignId: string) {
  const result = await ctx.client.GET('/v1/vouchers', { params: { query: { campaign_id: campaignId, limit: 100 } } });
  return result.data!.vouchers!;
}

async function validate(code: string, amount: number) {
  const result = await ctx.client.POST('/v1/validations', { body: { redeemables: [{ object: 'voucher', id: code }], order: { amount } } });
  expect(result.response.status).toBe(200);
  return result.data!;
}

/** A page of templates, with deepObject filters written in bracket form (the typed client cannot nest them). */
async function templatePage(query: string, path = '/v1/templates/campaigns'): Promise<TemplatePage> {
  const result = await raw(ctx.target, 'GET', `${path}?${query}`);
  expect(result.status).toBe(200);
  return result.body as TemplatePage;
}

describe('campaign templates from campaigns', () => {
  test('when a template is made from a discount campaign, then it keeps the setup: a campaign set up from it has the discount, code settings and a rule of its own that applies', async () => {
    const category = (await ctx.client.POST('/v1/categories', { body: { name: unique('TemplateCat'), hierarchy: 2 } })).data!;
    const minimum = await rule();
    const source = await discountCampaign({ validation_rules: [minimum.id], category_id: category.id, metadata: { season: 'spring' }, join_once: true });
    const made = await template({ campaign_id: source.id, name: unique('Spring template'), description: 'Fifteen off' });
    expect(made).toEqual({
      id: expect.stringMatching(/^camptpl_/),
      name: expect.stringContaining('Spring template'),
      description: 'Fifteen off',
      campaign_type: 'DISCOUNT_COUPONS',
      created_at: expect.any(String),
      object: 'campaign_template',
    });
    expect((await ctx.client.GET('/v1/templates/campaigns/{campaignTemplateId}', { params: { path: { campaignTemplateId: made.id }, query: { expand: 'json_template' } } })).data).toEqual(made);

    // The template is a copy: changing the source afterwards does not change what it makes.
    await ctx.client.PUT('/v1/campaigns/{campaignId}', { params: { path: { campaignId: source.id } }, body: { discount: { type: 'PERCENT', percent_off: 50 } } });

    const name = unique('From template');
    const setup = await ctx.client.POST('/v1/templates/campaigns/{campaignTemplateId}/campaign-setup', {
      params: { path: { campaignTemplateId: made.id } },
      body: { name, vouchers_count: 3, voucher: { code_config: { pattern: 'TPL-####' } }, description: 'Made from a template' },
    });
    expect(setup.response.status).toBe(200);
    const { campaign, created_resources: created } = setup.data!;
    expect(setup.data?.object).toBe('campaign_setup');
    expect(created).toEqual([{ id: expect.stringMatching(/^val_/), object: 'validation_rules' }]);
    const copiedRuleId = created[0]!.id!;
    expect(copiedRuleId).not.toBe(minimum.id);
    expect(campaign).toMatchObject({
      name,
      description: 'Made from a template',
      campaign_type: 'DISCOUNT_COUPONS',
      join_once: true,
      metadata: { season: 'spring' },
      category_id: category.id,
      vouchers_count: 3,
      voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'PERCENT', percent_off: 15 }, redemption: { quantity: 3 } },
      validation_rules_assignments: { total: 1, data: [expect.objectContaining({ rule_id: copiedRuleId, related_object_type: 'campaign' })] },
    });
    const copiedRule = await ctx.client.GET('/v1/validation-rules/{validationRuleId}', { params: { path: { validationRuleId: copiedRuleId } } });
    expect(copiedRule.data).toMatchObject({ name: minimumRule.name, rules: minimumRule.rules, error: minimumRule.error, assignments_count: 1 });
    const vouchers = await codesOf(campaign.id!);
    expect(vouchers).toHaveLength(3);
    for (const voucher of vouchers) expect(voucher.code).toMatch(/^TPL-[0-9A-Za-z]{4}$/);

    // The copied rule applies to the new campaign's vouchers.
    expect((await validate(vouchers[0]!.code!, 4000)).valid).toBe(false);
    expect(await validate(vouchers[0]!.code!, 6000)).toMatchObject({ valid: true, order: { discount_amount: 900 } });

    // A name another campaign has is 409, and nothing is made (no rule copy either).
    const rulesBefore = (await ctx.client.GET('/v1/validation-rules', { params: { query: { limit: 100, order: '-created_at' } } })).data!.total;
    const taken = await ctx.client.POST('/v1/templates/campaigns/{campaignTemplateId}/campaign-setup', { params: { path: { campaignTemplateId: made.id } }, body: { name } });
    expectError(failed(taken), 409, 'duplicate_found');
    expect((await ctx.client.GET('/v1/validation-rules', { params: { query: { limit: 100, order: '-created_at' } } })).data!.total).toBe(rulesBefore);
  });

  test('when a template is made from a gift card campaign, then it is GIFT_VOUCHERS and its campaigns issue cards with the same credit', async () => {
    const gifts = await ctx.client.POST('/v1/campaigns', {
      body: { name: unique('Gift source'), campaign_type: 'GIFT_VOUCHERS', voucher: { type: 'GIFT_VOUCHER', gift: { amount: 2500 } } },
    });
    const made = await template({ campaign_id: gifts.data!.name! });
    expect(made.campaign_type).toBe('GIFT_VOUCHERS');
    expect(made).not.toHaveProperty('description');
    const setup = await ctx.client.POST('/v1/templates/campaigns/{campaignTemplateId}/campaign-setup', {
      params: { path: { campaignTemplateId: made.id } },
      body: { name: unique('Gifts from template'), vouchers_count: 1, type: 'STATIC' },
    });
    expect(setup.data).toMatchObject({ created_resources: [], campaign: { campaign_type: 'GIFT_VOUCHERS', type: 'STATIC', voucher: { type: 'GIFT_VOUCHER', gift: { amount: 2500 } } } });
    const [card] = await codesOf(setup.data!.campaign.id!);
    expect(card).toMatchObject({ type: 'GIFT_VOUCHER', gift: { amount: 2500, balance: 2500 } });
    // A gift card template has no discount to give a promotion tier.
    const promotion = (await ctx.client.POST('/v1/campaigns', { body: { name: unique('Promo'), campaign_type: 'PROMOTION' } })).data!;
    const tier = await ctx.client.POST('/v1/templates/campaigns/{campaignTemplateId}/tier-setup', {
      params: { path: { campaignTemplateId: made.id } },
      body: { campaign_id: promotion.id!, name: 'Gift tier' },
    });
    expectError(failed(tier), 400, 'invalid_template_params');
  });

  test('when a template is made from a promotion tier, then it is a discount template, and a tier set up from it in another promotion gives the same discount', async () => {
    const minimum = await rule();
    const first = (await ctx.client.POST('/v1/campaigns', { body: { name: unique('Promo source'), campaign_type: 'PROMOTION' } })).data!;
    const tier = (
      await ctx.client.POST('/v1/promotions/{campaignId}/tiers', {
        params: { path: { campaignId: first.id! } },
        body: { name: 'Five off', banner: 'Five off every order', action: { discount: { type: 'AMOUNT', amount_off: 500 } }, validation_rules: [minimum.id] },
      })
    ).data!;
    const made = await template({ promotion_tier_id: tier.id! });
    expect(made.campaign_type).toBe('DISCOUNT_COUPONS');
    const second = (await ctx.client.POST('/v1/campaigns', { body: { name: unique('Promo target'), campaign_type: 'PROMOTION' } })).data!;
    const setup = await ctx.client.POST('/v1/templates/campaigns/{campaignTemplateId}/tier-setup', {
      params: { path: { campaignTemplateId: made.id } },
      body: { campaign_id: second.name!, name: 'Five off too', banner: 'Again five off', hierarchy: 3, metadata: { from: 'template' }, active: true },
    });
    expect(setup.response.status).toBe(200);
    expect(setup.data).toMatchObject({
      created_resources: [{ id: expect.stringMatching(/^val_/), object: 'validation_rules' }],
      promotion_tier: {
        name: 'Five off too',
        banner: 'Again five off',
        hierarchy: 3,
        metadata: { from: 'template' },
        campaign_id: second.id,
        action: { discount: { type: 'AMOUNT', amount_off: 500 } },
        validation_rule_assignments: { total: 1 },
      },
      object: 'promotion_tier_setup',
    });
    const tiers = await ctx.client.GET('/v1/promotions/{campaignId}/tiers', { params: { path: { campaignId: second.id! } } });
    expect(tiers.data?.tiers?.map((each) => each.name)).toEqual(['Five off too']);
    // A campaign that is not a promotion cannot take a tier.
    const coupons = await discountCampaign();
    const wrong = await ctx.client.POST('/v1/templates/campaigns/{campaignTemplateId}/tier-setup', {
      params: { path: { campaignTemplateId: made.id } },
      body: { campaign_id: coupons.id, name: 'Nope' },
    });
    expectError(failed(wrong), 400, 'invalid_campaign_params');
  });
});

describe('managing templates', () => {
  test('when templates are listed, then they come in ID order with a cursor, filters narrow them and total is sent only when asked for', async () => {
    const source = await discountCampaign();
    const tag = unique('listed');
    const made = [];
    for (let i = 0; i < 3; i++) made.push(await template({ campaign_id: source.id, name: `${tag}-${i}` }));
    const ids = made.map((each) => each.id).sort();
    const byName = `filters[name][conditions][$starts_with]=${tag}`;
    const seen: string[] = [];
    let query = `${byName}&limit=2&include_total=true`;
    for (let page = 0; page < 5; page++) {
      const result = await templatePage(query);
      expect(result.total).toBe(3);
      seen.push(...result.data!.map((each) => each.id));
      if (!result.has_more) break;
      query = `${byName}&limit=2&include_total=true&starting_after_id=${result.more_starting_after}`;
    }
    expect(seen).toEqual(ids);
    const descending = await templatePage(`${byName}&order=-id`);
    expect(descending.data!.map((each) => each.id)).toEqual([...ids].reverse());
    expect(descending).not.toHaveProperty('total');
    const gifts = await templatePage(`${byName}&filters[campaign_type][conditions][$is]=GIFT_VOUCHERS`);
    expect(gifts.data).toEqual([]);
    const typed = await ctx.client.GET('/v1/templates/campaigns', { params: { query: { limit: 100, include_total: true } } });
    expect(typed.data?.total).toBeGreaterThanOrEqual(3);
    expectError(await raw(ctx.target, 'GET', '/v1/templates/campaigns?filters[owner][conditions][$is]=me'), 400, 'invalid_query_params');
    expectError(await raw(ctx.target, 'GET', '/v1/templates/campaigns?limit=101'), 400, 'invalid_query_params');
  });

  test('when a template is renamed or deleted, then it reads back so; a taken name is 409 and an unknown template 404', async () => {
    const source = await discountCampaign();
    const first = await template({ campaign_id: source.id, description: 'Before' });
    const second = await template({ campaign_id: source.id });
    const path = { params: { path: { campaignTemplateId: first.id } } };
    const renamed = await ctx.client.PUT('/v1/templates/campaigns/{campaignTemplateId}', { ...path, body: { name: unique('Renamed'), description: null } });
    const { description: _before, ...rest } = first;
    expect(renamed.data).toEqual({ ...rest, name: expect.stringContaining('Renamed'), updated_at: expect.any(String) });
    expect((await ctx.client.GET('/v1/templates/campaigns/{campaignTemplateId}', path)).data).toEqual(renamed.data);
    expectError(failed(await ctx.client.PUT('/v1/templates/campaigns/{campaignTemplateId}', { ...path, body: { name: second.name } })), 409, 'duplicate_found');
    expectError(failed(await ctx.client.POST('/v1/templates/campaigns', { body: { name: second.name, campaign_id: source.id } })), 409, 'duplicate_found');

    expect((await ctx.client.DELETE('/v1/templates/campaigns/{campaignTemplateId}', path)).response.status).toBe(204);
    expectError(failed(await ctx.client.GET('/v1/templates/campaigns/{campaignTemplateId}', path)), 404, 'not_found');
    expectError(failed(await ctx.client.DELETE('/v1/templates/campaigns/{campaignTemplateId}', path)), 404, 'not_found');
    const setup = await ctx.client.POST('/v1/templates/campaigns/{campaignTemplateId}/campaign-setup', { ...path, body: { name: unique('Orphan') } });
    expect(expectError(failed(setup), 404, 'not_found').resource_type).toBe('campaign_template');
  });

  test('when a template request names no source, both, an unknown one or a campaign of another type, or breaks a limit, then 4xx and nothing is made', async () => {
    const source = await discountCampaign();
    const promotion = (await ctx.client.POST('/v1/campaigns', { body: { name: unique('Promo'), campaign_type: 'PROMOTION' } })).data!;
    const loyalty = (await ctx.client.POST('/v1/campaigns', { body: { name: unique('Club'), campaign_type: 'LOYALTY_PROGRAM', voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } } } })).data!;
    const post = (body: Record<string, unknown>) => raw(ctx.target, 'POST', '/v1/templates/campaigns', { body: JSON.stringify(body) });
    expectError(await post({ name: 'none' }), 400, 'invalid_template_params');
    expectError(await post({ name: 'both', campaign_id: source.id, promotion_tier_id: 'promo_x' }), 400, 'invalid_template_params');
    expectError(await post({ name: 'loyalty', campaign_id: loyalty.id }), 400, 'invalid_template_params');
    expectError(await post({ name: 'promotion', campaign_id: promotion.id }), 400, 'invalid_template_params');
    expect(expectError(await post({ name: 'unknown', campaign_id: 'camp_nothere' }), 404, 'not_found').resource_type).toBe('campaign');
    expect(expectError(await post({ name: 'unknown tier', promotion_tier_id: 'promo_nothere' }), 404, 'not_found').resource_type).toBe('promotion_tier');
    expectError(await post({ campaign_id: source.id }), 400, 'invalid_payload');
    expectError(await post({ name: 'x'.repeat(1001), campaign_id: source.id }), 400, 'invalid_payload');
    expectError(await post({ name: 'long', description: 'x'.repeat(10_001), campaign_id: source.id }), 400, 'invalid_payload');
    const made = await template({ campaign_id: source.id });
    const setup = (body: Record<string, unknown>) => raw(ctx.target, 'POST', `/v1/templates/campaigns/${made.id}/campaign-setup`, { body: JSON.stringify(body) });
    expectError(await setup({}), 400, 'invalid_payload');
    expectError(await setup({ name: 'big', vouchers_count: 100_001 }), 400, 'invalid_payload');
    expectError(await setup({ name: 'timeframe', validity_timeframe: { interval: 'P1D', duration: 'PT1H' } }), 400, 'invalid_payload');
  });
});

describe('templates across projects', () => {
  test('when a template is copied to another project, then that project lists it and sets campaigns up from it with rules of its own; a taken name is 409', async () => {
    if (!ctx.target.management || !ctx.target.projectId) {
      skip(because('management', 'projectId'), ['management-list-campaign-templates', 'management-copy-campaign-template']);
      return;
    }
    const management = managementClientFor(ctx.target);
    const projectId = ctx.target.projectId!;
    const minimum = await rule();
    const source = await discountCampaign({ validation_rules: [minimum.id] });
    const made = await template({ campaign_id: source.id });

    const listed = await templatePage(`filters[id][conditions][$is]=${made.id}&include_total=true`, `/management/v1/projects/${projectId}/templates/campaigns`);
    expect(listed).toEqual({ object: 'list', data_ref: 'data', data: [made], total: 1, has_more: false });

    const destination = (await management.POST('/management/v1/projects', { body: { name: unique('Template destination') } })).data!;
    const key = { appId: destination.server_side_key!.app_id, appToken: destination.server_side_key!.app_token };
    const copy = await management.POST('/management/v1/projects/{projectId}/templates/campaigns/{campaignTemplateId}/copy', {
      params: { path: { projectId, campaignTemplateId: made.id } },
      body: { name: 'Copied template', destination_project_id: destination.id! },
    });
    expect(copy.response.status).toBe(200);
    expect(copy.data).toEqual({ ...made, id: expect.stringMatching(/^camptpl_/), name: 'Copied template', created_at: expect.any(String) });
    expect(copy.data!.id).not.toBe(made.id);

    const other = clientFor(ctx.target, key);
    expect((await other.GET('/v1/templates/campaigns', { params: { query: { include_total: true } } })).data).toMatchObject({ data: [copy.data], total: 1 });
    const setup = await other.POST('/v1/templates/campaigns/{campaignTemplateId}/campaign-setup', {
      params: { path: { campaignTemplateId: copy.data!.id } },
      body: { name: 'Campaign in the other project', vouchers_count: 1 },
    });
    expect(setup.data).toMatchObject({ created_resources: [{ object: 'validation_rules' }], campaign: { voucher: { discount: { type: 'PERCENT', percent_off: 15 } }, vouchers_count: 1 } });
    const ruleThere = await other.GET('/v1/validation-rules/{validationRuleId}', { params: { path: { validationRuleId: setup.data!.created_resources[0]!.id! } } });
    expect(ruleThere.data).toMatchObject({ name: minimumRule.name, rules: minimumRule.rules });
    // The source project does not see the other project's rule.
    expectError(failed(await ctx.client.GET('/v1/validation-rules/{validationRuleId}', { params: { path: { validationRuleId: setup.data!.created_resources[0]!.id! } } })), 404, 'not_found');

    const again = await management.POST('/management/v1/projects/{projectId}/templates/campaigns/{campaignTemplateId}/copy', {
      params: { path: { projectId, campaignTemplateId: made.id } },
      body: { name: 'Copied template', destination_project_id: destination.id! },
    });
    expectError(failed(again), 409, 'duplicate_found');
    const nowhere = await management.POST('/management/v1/projects/{projectId}/templates/campaigns/{campaignTemplateId}/copy', {
      params: { path: { projectId, campaignTemplateId: made.id } },
      body: { name: 'Lost', destination_project_id: 'proj_nothere' },
    });
    expect(expectError(failed(nowhere), 404, 'not_found').resource_type).toBe('project');
    const unknown = await management.POST('/management/v1/projects/{projectId}/templates/campaigns/{campaignTemplateId}/copy', {
      params: { path: { projectId, campaignTemplateId: 'camptpl_nothere' } },
      body: { name: 'Lost', destination_project_id: destination.id! },
    });
    expect(expectError(failed(unknown), 404, 'not_found').resource_type).toBe('campaign_template');
    expectError(await raw(ctx.target, 'GET', '/management/v1/projects/proj_nothere/templates/campaigns'), 404, 'not_found');
    expectError(await raw(ctx.target, 'GET', `/management/v1/projects/${projectId}/templates/campaigns`, { credentials: ctx.target.credentials }), 401, 'unauthorized');
  });
});
