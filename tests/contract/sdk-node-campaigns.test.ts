/**
 * The Node.js SDK `voucherify` 5.2.0, unmodified: its campaign, promotion (tiers) and validation rule
 * methods, each called with every field the call can carry, checking what the server keeps.
 */
import { describe, expect, test } from '@jest/globals';
import { finishedAction } from './data-helpers.js';
import { known } from './known.js';
import { dataMethods } from './sdk-data-methods.js';
import { expectAllCalled, inventoryOf, refusal, useNodeSdk, type Body, type Query, type Reply } from './sdk-node.js';
import { unique, useTarget } from './target.js';
import { legacyMethods } from './sdk-legacy-scope.js';

const ctx = useTarget();
const node = useNodeSdk(ctx);

type Campaign = Reply<'get-campaign'>;
type Tier = Reply<'add-promotion-tier-to-campaign'>;
type Rule = Reply<'get-validation-rule'>;
type Rules = NonNullable<Body<'create-validation-rules'>['rules']>;
type BundleRules = NonNullable<Body<'create-validation-rules'>['bundle_rules']>;

/**
 * A rule set as the API writes it: numbered rules beside `logic`. The generated type gives every key the
 * numbered rules' type, `logic` included, so no literal with `logic` fits it without this cast.
 */
function ruleSet(set: { logic?: string; [number: `${number}`]: object }): Rules {
  return set as Rules;
}

async function category(): Promise<{ id: string; name: string }> {
  const name = unique('SDK node category');
  const made = await ctx.client.POST('/v1/categories', { body: { name, hierarchy: 1 } });
  return { id: made.data!.id, name };
}

async function minimumRule(amount: number): Promise<string> {
  const made = await node.sdk.validationRules.create({
    name: unique('SDK node minimum'),
    rules: ruleSet({ '1': { name: 'order.amount', conditions: { $more_than_or_equal: [amount] } }, logic: '1' }),
  });
  return made.id;
}

async function validate(id: string, object: 'voucher' | 'promotion_tier', amount: number) {
  const answer = await ctx.client.POST('/v1/validations', { body: { redeemables: [{ object, id }], order: { amount } } });
  expect(answer.response.status).toBe(200);
  return answer.data!;
}

const noAccessChange = { areas_ids: [], area_stores_ids: [], area_all_stores_ids: [] };

describe('the Node.js SDK: campaigns', () => {
  test('when a referral campaign is created with every field, then get and a list filtered by every parameter show it as sent', async () => {
    const { sdk } = node;
    const shelf = await category();
    const ruleId = await minimumRule(2000);
    const rewards = await sdk.campaigns.create({ name: unique('SDK node rewards'), campaign_type: 'GIFT_VOUCHERS', voucher: { type: 'GIFT_VOUCHER', gift: { amount: 1000 } } });
    const name = unique('SDK node referral');
    const campaign = {
      name,
      description: 'Friends bring friends',
      campaign_type: 'REFERRAL_PROGRAM',
      type: 'AUTO_UPDATE',
      voucher: {
        type: 'DISCOUNT_VOUCHER',
        discount: { type: 'AMOUNT', amount_off: 1500 },
        redemption: { quantity: 2 },
        code_config: { length: 6, charset: 'ABCDEFGHJKMNPQRSTUVWXYZ', pattern: 'REF-######', prefix: 'N-', postfix: '-26', initial_count: 0 },
        is_referral_code: true,
      },
      vouchers_count: 3,
      start_date: '2020-01-01T00:00:00.000Z',
      expiration_date: '2099-01-01T00:00:00.000Z',
      validity_timeframe: { interval: 'P1D', duration: 'P1D' },
      validity_day_of_week: [0, 1, 2, 3, 4, 5, 6],
      validity_hours: { daily: [{ start_time: '00:00', expiration_time: '23:59', days_of_week: [0, 1, 2, 3, 4, 5, 6] }] },
      activity_duration_after_publishing: 'P30D',
      category: shelf.name,
      category_id: shelf.id,
      metadata: { region: 'north' },
      auto_join: false,
      join_once: true,
      referral_program: {
        conversion_event_type: 'redemption',
        // Used with `custom_event` conversions only; kept as given.
        custom_event: { name: 'signed_up' },
        referee_reward: { related_object_parent: { id: rewards.id, object: 'CAMPAIGN' }, type: 'GIFT_VOUCHER', amount: 500 },
      },
      use_voucher_metadata_schema: true,
      validation_rules: [ruleId],
      // The reference server has no areas or stores; it accepts these and ignores them.
      access_settings: { assign: noAccessChange, unassign: noAccessChange },
      // Only a promotion campaign takes tiers: none here.
      promotion: null,
    } satisfies Required<Body<'create-campaign'>>;
    const created: Campaign = await sdk.campaigns.create(campaign);
    expect(created).toMatchObject({
      name,
      description: campaign.description,
      campaign_type: 'REFERRAL_PROGRAM',
      type: 'AUTO_UPDATE',
      vouchers_count: 3,
      start_date: campaign.start_date,
      expiration_date: campaign.expiration_date,
      validity_timeframe: campaign.validity_timeframe,
      validity_day_of_week: campaign.validity_day_of_week,
      validity_hours: campaign.validity_hours,
      activity_duration_after_publishing: 'P30D',
      category_id: shelf.id,
      metadata: { region: 'north' },
      auto_join: false,
      join_once: true,
      use_voucher_metadata_schema: true,
      referral_program: { conversion_event_type: 'redemption', referee_reward: { type: 'GIFT_VOUCHER', amount: 500, related_object_parent: { id: rewards.id, name: rewards.name } } },
      voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 1500 }, is_referral_code: true, redemption: { quantity: 2 } },
      object: 'campaign',
    });
    expect(created.validation_rules_assignments?.data?.map((entry) => entry.rule_id)).toEqual([ruleId]);
    const read: Campaign = await sdk.campaigns.get(created.id!);
    expect(read).toMatchObject({ id: created.id, name, vouchers_count: 3 });
    expect(await sdk.campaigns.get(name)).toMatchObject({ id: created.id });
    const codes = (await sdk.vouchers.list({ campaign_id: created.id })).vouchers ?? [];
    expect(codes.map((voucher) => voucher.code)).toEqual(expect.arrayContaining([expect.stringMatching(/^N-REF-[A-Z]{6}-26$/)]));
    expect(codes).toHaveLength(3);

    const everyFilter = {
      limit: 5,
      page: 1,
      campaign_type: 'REFERRAL_PROGRAM',
      campaign_status: 'DONE',
      is_referral_code: true,
      expand: 'category',
      filters: { junction: 'and', campaigns: { conditions: { $is: name } }, category_ids: { conditions: { $in: [shelf.id] } } },
      access_settings: { filter: { areas_ids: [], area_stores_ids: [], area_all_stores_ids: [] } },
      order: '-created_at',
    } satisfies Required<Query<'list-campaigns'>>;
    const listed: Reply<'list-campaigns'> = await sdk.campaigns.list(everyFilter);
    expect(listed).toMatchObject({ object: 'list', data_ref: 'campaigns', total: 1 });
    expect(known(listed, 'campaigns').campaigns.map((entry) => entry.id)).toEqual([created.id]);
  });

  test('when a campaign is updated with every field, then the change is kept and its new discount reaches its vouchers', async () => {
    const { sdk } = node;
    const made: Campaign = await sdk.campaigns.create({
      name: unique('SDK node referral'),
      campaign_type: 'REFERRAL_PROGRAM',
      voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 1000 } },
      vouchers_count: 1,
      metadata: { region: 'north', season: 'winter' },
    });
    const shelf = await category();
    const changes = {
      description: 'Now with a bigger discount',
      type: 'STATIC',
      start_date: '2021-01-01T00:00:00.000Z',
      expiration_date: '2098-01-01T00:00:00.000Z',
      validity_timeframe: null,
      validity_day_of_week: [1, 2, 3, 4, 5],
      validity_hours: null,
      activity_duration_after_publishing: 'P10D',
      category: shelf.name,
      category_id: shelf.id,
      metadata: { region: 'south' },
      unset_metadata_fields: ['season'],
      auto_join: true,
      join_once: false,
      discount: { type: 'PERCENT', percent_off: 25 },
      // A referral campaign has no gift and no loyalty tiers: null leaves them out.
      gift: null,
      referral_program: { conversion_event_type: 'custom_event', custom_event: { name: 'first_order' } },
      loyalty_tiers_expiration: null,
      options: { recalculate_tiers: false },
      access_settings: { assign: noAccessChange, unassign: noAccessChange },
    } satisfies Required<Body<'update-campaign'>>;
    const updated: Campaign = await sdk.campaigns.update(made.id!, changes);
    expect(updated).toMatchObject({
      id: made.id,
      description: changes.description,
      type: 'STATIC',
      start_date: changes.start_date,
      expiration_date: changes.expiration_date,
      validity_timeframe: null,
      validity_day_of_week: [1, 2, 3, 4, 5],
      activity_duration_after_publishing: 'P10D',
      category_id: shelf.id,
      metadata: { region: 'south' },
      auto_join: true,
      join_once: false,
      voucher: { discount: { type: 'PERCENT', percent_off: 25 } },
      referral_program: { conversion_event_type: 'custom_event', custom_event: { name: 'first_order' } },
      updated_at: expect.any(String),
    });
    expect(updated.metadata).not.toHaveProperty('season');
    // By name too, as the README shows.
    const renamed: Campaign = await sdk.campaigns.update(made.name!, { description: 'By name' });
    expect(renamed).toMatchObject({ id: made.id, description: 'By name' });
    // A new discount replaces that of every voucher of the campaign.
    const [voucher] = (await sdk.vouchers.list({ campaign_id: made.id })).vouchers ?? [];
    expect(voucher).toMatchObject({ discount: { type: 'PERCENT', percent_off: 25 } });
  });

  test('when a voucher is added to a campaign with every field, then it takes those settings and the rest from the campaign', async () => {
    const { sdk } = node;
    const made: Campaign = await sdk.campaigns.create({
      name: unique('SDK node coupons'),
      campaign_type: 'DISCOUNT_COUPONS',
      voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 800 }, redemption: { quantity: 1 } },
    });
    const shelf = await category();
    const code = unique('NODE-ADDED');
    const settings = {
      code,
      category: shelf.name,
      category_id: shelf.id,
      start_date: '2020-02-01T00:00:00.000Z',
      expiration_date: '2097-02-01T00:00:00.000Z',
      validity_timeframe: { interval: 'P1W', duration: 'P6D' },
      validity_day_of_week: [0, 1, 2, 3, 4, 5, 6],
      validity_hours: { daily: [] },
      additional_info: 'Handed out at the fair',
      metadata: { stand: 7 },
      redemption: { quantity: 4 },
      // The code is given, so no code configuration applies; null means the template's.
      code_config: null,
    } satisfies Required<Body<'add-vouchers-to-campaign'>>;
    const added: Reply<'add-vouchers-to-campaign'> = await sdk.campaigns.addVoucher(made.id!, settings);
    expect(added).toMatchObject({
      code,
      campaign_id: made.id,
      category_id: shelf.id,
      start_date: settings.start_date,
      expiration_date: settings.expiration_date,
      validity_timeframe: settings.validity_timeframe,
      additional_info: settings.additional_info,
      metadata: { stand: 7 },
      redemption: { quantity: 4 },
      discount: { type: 'AMOUNT', amount_off: 800 },
    });
    // Without settings (by the campaign's name): a generated code with the template's settings.
    const plain: Reply<'add-vouchers-to-campaign'> = await sdk.campaigns.addVoucher(made.name!);
    expect(plain).toMatchObject({ campaign_id: made.id, discount: { amount_off: 800 }, redemption: { quantity: 1 } });
    expect(await sdk.campaigns.get(made.id!)).toMatchObject({ vouchers_count: 2 });
  });

  test('when a campaign is deleted with and without force, then it and its vouchers are gone', async () => {
    const { sdk } = node;
    for (const params of [undefined, { force: true }]) {
      const made: Campaign = await sdk.campaigns.create({
        name: unique('SDK node doomed'),
        campaign_type: 'DISCOUNT_COUPONS',
        voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } },
        vouchers_count: 2,
      });
      const [voucher] = (await sdk.vouchers.list({ campaign_id: made.id })).vouchers ?? [];
      // The SDK always sends `force` (false unless asked).
      // The deletion is accepted (202) and carried out as an async action, which a client follows to its end.
      const accepted = (await sdk.campaigns.delete(made.id!, params)) as { async_action_id: string };
      await finishedAction(ctx.client, accepted.async_action_id);
      expect(await refusal(sdk.campaigns.get(made.id!))).toMatchObject({ code: 404, key: 'not_found' });
      expect(await refusal(sdk.vouchers.get(known(voucher, 'code').code))).toMatchObject({ code: 404 });
    }
  });
});

describe('the Node.js SDK: promotions', () => {
  test('when a promotion is created with its tiers and tiers are added with every field, then the lists show them and validation applies them', async () => {
    const { sdk } = node;
    const shelf = await category();
    const ruleId = await minimumRule(5000);
    const firstTier = {
      name: 'Over 100',
      banner: 'Save 10 on 100',
      action: { discount: { type: 'AMOUNT', amount_off: 1000, effect: 'APPLY_TO_ORDER' } },
      metadata: { level: 'gold' },
      hierarchy: 1,
      active: true,
      start_date: '2020-01-01T00:00:00.000Z',
      expiration_date: '2099-01-01T00:00:00.000Z',
      validity_timeframe: { interval: 'P1D', duration: 'P1D' },
      validity_day_of_week: [0, 1, 2, 3, 4, 5, 6],
      validity_hours: { daily: [{ start_time: '00:00', expiration_time: '23:59', days_of_week: [0, 1, 2, 3, 4, 5, 6] }] },
      category: shelf.name,
      category_id: shelf.id,
      // Assignments are the server's records; sent back as GET shows them, they are ignored.
      validation_rule_assignments: { object: 'list', data_ref: 'data', data: [], total: 0 },
      validation_rules: [ruleId],
    } satisfies Required<Body<'add-promotion-tier-to-campaign'>>;
    // `promotions.create` is `campaigns.create`: a promotion campaign with its first tiers.
    const promotion: Campaign = await sdk.promotions.create({
      name: unique('SDK node promotion'),
      campaign_type: 'PROMOTION',
      promotion: { tiers: [firstTier] },
    });
    expect(promotion).toMatchObject({ campaign_type: 'PROMOTION', promotion: { total: 1 } });

    const secondTier = {
      ...firstTier,
      name: 'Over 50',
      banner: 'Save 5 on 50',
      hierarchy: 2,
      action: { discount: { type: 'AMOUNT', amount_off: 500 } },
      metadata: { level: 'silver' },
    } satisfies Required<Body<'add-promotion-tier-to-campaign'>>;
    const added = known<Tier, 'id'>(await sdk.promotions.tiers.create(promotion.id!, secondTier), 'id');
    expect(added).toMatchObject({
      name: 'Over 50',
      banner: 'Save 5 on 50',
      action: { discount: { type: 'AMOUNT', amount_off: 500 } },
      metadata: { level: 'silver' },
      hierarchy: 2,
      active: true,
      start_date: firstTier.start_date,
      expiration_date: firstTier.expiration_date,
      validity_timeframe: firstTier.validity_timeframe,
      validity_day_of_week: firstTier.validity_day_of_week,
      validity_hours: firstTier.validity_hours,
      category_id: shelf.id,
      campaign: { id: promotion.id },
      object: 'promotion_tier',
    });
    expect(added.validation_rule_assignments?.data?.map((entry) => entry.rule_id)).toEqual([ruleId]);

    const ofCampaign: Reply<'list-promotion-tiers-from-campaign'> = await sdk.promotions.tiers.list(promotion.id!);
    expect(ofCampaign).toMatchObject({ object: 'list', data_ref: 'tiers', total: 2 });
    expect(known(ofCampaign, 'tiers').tiers.map((tier) => tier.name)).toEqual(['Over 100', 'Over 50']);

    const everyFilter = { is_available: true, limit: 100, page: 1, order: '-created_at' } satisfies Required<Query<'list-promotion-tiers'>>;
    const available: Reply<'list-promotion-tiers'> = await sdk.promotions.tiers.listAll(everyFilter);
    expect(known(available, 'tiers').tiers.map((tier) => tier.id)).toEqual(expect.arrayContaining([added.id]));
    expect(known(available, 'tiers').tiers.every((tier) => tier.active !== false)).toBe(true);

    // The rule holds: below 50.00 neither tier applies; at 60.00 the second one does.
    expect(await validate(added.id, 'promotion_tier', 4000)).toMatchObject({ valid: false });
    expect(await validate(added.id, 'promotion_tier', 6000)).toMatchObject({ valid: true, order: { discount_amount: 500 } });
  });

  test('when a tier is updated with every field, and sent back whole as read, then the change is kept; when deleted, it is gone', async () => {
    const { sdk } = node;
    const promotion: Campaign = await sdk.promotions.create({ name: unique('SDK node promotion'), campaign_type: 'PROMOTION' });
    const tier = known<Tier, 'id'>(await sdk.promotions.tiers.create(promotion.id!, { name: 'Base', action: { discount: { type: 'PERCENT', percent_off: 5 } } }), 'id');
    const shelf = await category();
    const changes = {
      id: tier.id,
      name: 'Base plus',
      banner: 'Seven percent off',
      action: { discount: { type: 'PERCENT', percent_off: 7 } },
      metadata: { level: 'bronze' },
      hierarchy: 3,
      active: false,
      start_date: '2022-01-01T00:00:00.000Z',
      expiration_date: '2096-01-01T00:00:00.000Z',
      validity_timeframe: null,
      validity_day_of_week: [6],
      validity_hours: null,
      category: shelf.name,
      category_id: shelf.id,
      validation_rule_assignments: { object: 'list', data_ref: 'data', data: [], total: 0 },
    } satisfies Required<Body<'update-promotion-tier'>> & { id: string };
    // The SDK sends the tier's `id` in the body as well as in the path.
    const updated: Tier = await sdk.promotions.tiers.update(changes);
    expect(updated).toMatchObject({
      id: tier.id,
      name: 'Base plus',
      banner: 'Seven percent off',
      action: { discount: { type: 'PERCENT', percent_off: 7 } },
      metadata: { level: 'bronze' },
      hierarchy: 3,
      active: false,
      start_date: changes.start_date,
      expiration_date: changes.expiration_date,
      validity_day_of_week: [6],
      category_id: shelf.id,
    });
    const listed = await sdk.promotions.tiers.list(promotion.id!);
    const whole = known(listed, 'tiers').tiers.find((entry) => entry.id === tier.id)!;
    const again: Tier = await sdk.promotions.tiers.update({ ...(whole as Body<'update-promotion-tier'>), id: tier.id, active: true });
    expect(again).toMatchObject({ id: tier.id, name: 'Base plus', active: true, action: { discount: { percent_off: 7 } } });

    await sdk.promotions.tiers.delete(tier.id);
    expect((await sdk.promotions.tiers.list(promotion.id!)).tiers).toEqual([]);
    expect(await refusal(sdk.promotions.tiers.delete(tier.id))).toMatchObject({ code: 404, key: 'not_found' });
  });
});

describe('the Node.js SDK: validation rules', () => {
  test('when a rule is created and updated with every field, then get and a list filtered by every parameter show it', async () => {
    const { sdk } = node;
    const name = unique('SDK node rule');
    const before = new Date(Date.now() - 60_000).toISOString();
    const rule = {
      name,
      rules: ruleSet({ '1': { name: 'order.amount', conditions: { $more_than: [1000] }, error: { message: 'Spend more than 10.00' } }, logic: '1' }),
      // Numbered bundle rules are refused by the reference server; the limit alone is kept. (The generated
      // type has the same trouble with `limit` beside the numbered rules as `ruleSet` has with `logic`.)
      bundle_rules: { limit: 2 } as BundleRules,
      error: { message: 'This order does not qualify' },
      applicable_to: { included: [], excluded: [], included_all: true },
      type: 'expression',
      context_type: 'global',
    } satisfies Required<Body<'create-validation-rules'>>;
    const created: Rule = await sdk.validationRules.create(rule);
    expect(created).toMatchObject({
      name,
      rules: rule.rules,
      bundle_rules: { limit: 2 },
      error: rule.error,
      applicable_to: { included: [], excluded: [], included_all: true },
      type: 'expression',
      context_type: 'global',
      assignments_count: 0,
      object: 'validation_rules',
    });
    expect(await sdk.validationRules.get(created.id)).toEqual(created);

    const changes = {
      id: created.id,
      name: `${name} (raised)`,
      rules: ruleSet({ '1': { name: 'order.amount', conditions: { $more_than: [3000] } }, logic: '1' }),
      bundle_rules: null,
      error: { message: 'Spend more than 30.00' },
      applicable_to: null,
      type: 'advanced',
      context_type: 'global',
    } satisfies Required<Body<'update-validation-rule'>> & { id: string };
    const updated: Rule = await sdk.validationRules.update(changes);
    expect(updated).toMatchObject({ id: created.id, name: changes.name, rules: changes.rules, error: changes.error, type: 'advanced', updated_at: expect.any(String) });
    expect(await sdk.validationRules.get(created.id)).toEqual(updated);

    const everyFilter = { limit: 100, page: 1, order: '-created_at', start_date: before, end_date: '2999-01-01T00:00:00.000Z' } satisfies Required<Query<'list-validation-rules'>>;
    const listed: Reply<'list-validation-rules'> = await sdk.validationRules.list(everyFilter);
    expect(listed).toMatchObject({ object: 'list', data_ref: 'data' });
    expect(known(listed, 'data').data.find((entry) => entry.id === created.id)).toEqual(updated);
  });

  test('when a rule is assigned in either form and the assignment deleted, then validation follows, and a deleted rule is gone', async () => {
    const { sdk } = node;
    const ruleId = await minimumRule(5000);
    const code = unique('NODE');
    await sdk.vouchers.create({ code, type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 500 } });
    const campaign: Campaign = await sdk.campaigns.create({ name: unique('SDK node coupons'), campaign_type: 'DISCOUNT_COUPONS', voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 300 } } });

    // The full form names the object and its kind; the short form names it under its kind.
    const full = { related_object_type: 'voucher', related_object_id: code } satisfies Required<Pick<Body<'create-validation-rule-assignment'>, 'related_object_type' | 'related_object_id'>>;
    const toVoucher: Reply<'create-validation-rule-assignment'> = await sdk.validationRules.createAssignment(ruleId, full);
    expect(toVoucher).toMatchObject({ rule_id: ruleId, related_object_type: 'voucher', object: 'validation_rules_assignment' });
    const short = { campaign: campaign.id! } satisfies Required<Pick<Body<'create-validation-rule-assignment'>, 'campaign'>>;
    const toCampaign: Reply<'create-validation-rule-assignment'> = await sdk.validationRules.createAssignment(ruleId, short);
    expect(toCampaign).toMatchObject({ rule_id: ruleId, related_object_id: campaign.id, related_object_type: 'campaign' });
    expect(await validate(code, 'voucher', 4000)).toMatchObject({ valid: false });

    const everyParameter = { limit: 10, page: 1, order: 'created_at' } satisfies Required<Query<'list-validation-rule-assignments'>>;
    const assignments: Reply<'list-validation-rule-assignments'> = await sdk.validationRules.listAssignments(ruleId, everyParameter);
    expect(assignments).toMatchObject({ object: 'list', data_ref: 'data', total: 2 });
    expect(known(assignments, 'data').data.map((entry) => entry.id)).toEqual([toVoucher.id, toCampaign.id]);
    expect(await sdk.validationRules.get(ruleId)).toMatchObject({ assignments_count: 2 });

    await sdk.validationRules.deleteAssignment(ruleId, toVoucher.id);
    expect(await validate(code, 'voucher', 4000)).toMatchObject({ valid: true, order: { discount_amount: 500 } });
    expect((await sdk.validationRules.listAssignments(ruleId)).data?.map((entry) => entry.id)).toEqual([toCampaign.id]);

    await sdk.validationRules.delete(ruleId);
    expect(await refusal(sdk.validationRules.get(ruleId))).toMatchObject({ code: 404, key: 'not_found' });
  });
});

describe('the Node.js SDK: coverage', () => {
  test('every method of campaigns, promotions and validationRules that reaches the contract was called', () => {
    // `promotions.validate` and `promotions.tiers.redeem` are sdk-node-legacy.test.ts's; campaign voucher
    // imports are called in sdk-node-data.test.ts.
    const elsewhere = [...legacyMethods('voucherify'), ...dataMethods('voucherify')];
    expectAllCalled(node.calls, inventoryOf(['campaigns', 'promotions', 'validationRules']).filter((name) => !elsewhere.includes(name)));
    // Methods the inventory misses: `addVoucher` writes its path on the line after `this.client.post(`, and
    // `promotions.create` hands over to `campaigns.create` instead of calling the client itself.
    expectAllCalled(node.calls, ['campaigns.addVoucher', 'promotions.create']);
  });
});
