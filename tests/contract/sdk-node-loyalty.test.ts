/**
 * The Node.js SDK `voucherify` 5.2.0, unmodified: its loyalty program (earning rules, members, points,
 * reward redemption) and reward methods, each called with every field the call can carry, checking what
 * the server keeps and what the points do.
 */
import { describe, expect, test } from '@jest/globals';
import { known } from './known.js';
import { expectAllCalled, inventoryOf, refusal, useNodeSdk, type Body, type Query, type Reply } from './sdk-node.js';
import { unique, useTarget } from './target.js';
import { readFileSync } from 'node:fs';
import { BUNDLED_CONTRACT } from '../../server/paths.js';
import { PROGRAM_OPERATIONS } from './program-operations.js';
import { nodeSdkMethods } from './sdk-methods.js';

const ctx = useTarget();
/** Product names and SKU names are unique in a project: this run's own, so the suite can run again on the same server. */
const RUN = unique('run');
const node = useNodeSdk(ctx);

type Program = Reply<'get-loyalty-program'>;
type Card = Reply<'get-member-1'>;
type EarningRuleBody = Body<'create-earning-rule'>[number];
type Reward = Reply<'get-reward'>;
type Assignment = Reply<'create-reward-assignment'>;
type RewardParameters = Body<'create-reward'>['parameters'];

const noAreas = { areas_ids: [], area_all_stores_ids: [], area_stores_ids: [] };

async function category(): Promise<{ id: string; name: string }> {
  const name = unique('SDK node category');
  const made = await ctx.client.POST('/v1/categories', { body: { name, hierarchy: 1 } });
  return { id: made.data!.id, name };
}

/** A program whose cards start empty, made through the SDK. */
async function program(): Promise<Program> {
  return node.sdk.loyalties.create({ name: unique('SDK node loyalty'), voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } } });
}

describe('the Node.js SDK: loyalty programs', () => {
  test('when a program is created and updated with every field, then get and a list with every parameter show it; when deleted, it is gone', async () => {
    const { sdk } = node;
    const shelf = await category();
    const name = unique('SDK node coffee club');
    const settings = {
      name,
      description: 'Points for every coffee',
      campaign_type: 'LOYALTY_PROGRAM',
      type: 'AUTO_UPDATE',
      voucher: {
        type: 'LOYALTY_CARD',
        loyalty_card: {
          points: 50,
          expiration_rules: { period_type: 'MONTH', period_value: 12, rounding_type: 'END_OF_MONTH', rounding_value: 1, fixed_month: 12, fixed_day: 31 },
          // The card's counters are the server's: accepted and ignored.
          balance: 999,
          next_expiration_date: null,
          next_expiration_points: null,
          pending_points: 0,
          expired_points: 0,
          subtracted_points: 0,
        },
        redemption: { quantity: null },
        code_config: { length: 8, charset: '0123456789', pattern: 'CLUB-########', prefix: '', postfix: '', initial_count: 0 },
      },
      vouchers_count: 2,
      start_date: '2020-01-01T00:00:00.000Z',
      expiration_date: '2099-01-01T00:00:00.000Z',
      validity_timeframe: { interval: 'P1D', duration: 'P1D' },
      validity_day_of_week: [0, 1, 2, 3, 4, 5, 6],
      validity_hours: { daily: [{ start_time: '00:00', expiration_time: '23:59', days_of_week: [0, 1, 2, 3, 4, 5, 6] }] },
      category: shelf.name,
      category_id: shelf.id,
      metadata: { region: 'north' },
      auto_join: false,
      join_once: true,
      // Accepted and ignored by the reference server.
      activity_duration_after_publishing: 'P90D',
      access_settings: { assign: noAreas, unassign: noAreas },
      use_voucher_metadata_schema: true,
    } satisfies Required<Body<'create-loyalty-program'>>;
    const created: Program = await sdk.loyalties.create(settings);
    expect(created).toMatchObject({
      name,
      description: settings.description,
      campaign_type: 'LOYALTY_PROGRAM',
      type: 'AUTO_UPDATE',
      vouchers_count: 2,
      start_date: settings.start_date,
      expiration_date: settings.expiration_date,
      validity_timeframe: settings.validity_timeframe,
      validity_day_of_week: settings.validity_day_of_week,
      validity_hours: settings.validity_hours,
      category_id: shelf.id,
      metadata: { region: 'north' },
      auto_join: false,
      join_once: true,
      use_voucher_metadata_schema: true,
      voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 50, expiration_rules: settings.voucher.loyalty_card.expiration_rules } },
      object: 'campaign',
    });
    expect(await sdk.loyalties.get(created.id!)).toMatchObject({ id: created.id, name });
    const codes = (await sdk.vouchers.list({ campaign_id: created.id })).vouchers ?? [];
    expect(codes.map((card) => card.code)).toEqual([expect.stringMatching(/^CLUB-\d{8}$/), expect.stringMatching(/^CLUB-\d{8}$/)]);
    expect(codes.every((card) => card.loyalty_card?.points === 50)).toBe(true);

    const everyParameter = { limit: 100, page: 1, order: '-created_at', expand: 'category' } satisfies Required<Query<'list-loyalty-programs'>>;
    const listed: Reply<'list-loyalty-programs'> = await sdk.loyalties.list(everyParameter);
    expect(listed).toMatchObject({ object: 'list', data_ref: 'campaigns' });
    expect(known(listed, 'campaigns').campaigns.map((entry) => entry.id)).toContain(created.id);

    // The SDK takes `id` out of the body and into the path.
    const changes = {
      id: created.id!,
      description: 'Points for every coffee and cake',
      type: 'STATIC',
      start_date: '2021-01-01T00:00:00.000Z',
      expiration_date: '2098-01-01T00:00:00.000Z',
      validity_timeframe: null,
      validity_day_of_week: [1, 2, 3, 4, 5],
      validity_hours: null,
      category: null,
      category_id: null,
      metadata: { region: 'south', season: 'spring' },
      unset_metadata_fields: ['season'],
      auto_join: true,
      join_once: false,
      activity_duration_after_publishing: 'P60D',
      access_settings: { assign: noAreas, unassign: noAreas },
      // Accepted and ignored: the reference server's tiers always follow the balance.
      loyalty_tiers_expiration: { qualification_type: 'BALANCE', start_date: { type: 'IMMEDIATE' }, expiration_date: { type: 'BALANCE_DROP' } },
      options: { recalculate_tiers: true },
    } satisfies Required<Body<'update-loyalty-program'>> & { id: string };
    const updated: Program = await sdk.loyalties.update(changes);
    expect(updated).toMatchObject({
      id: created.id,
      description: changes.description,
      type: 'STATIC',
      start_date: changes.start_date,
      expiration_date: changes.expiration_date,
      validity_timeframe: null,
      validity_day_of_week: [1, 2, 3, 4, 5],
      validity_hours: null,
      category_id: null,
      metadata: { region: 'south' },
      auto_join: true,
      join_once: false,
      updated_at: expect.any(String),
    });
    expect(updated.metadata).not.toHaveProperty('season');

    // The SDK takes no `force` here.
    await sdk.loyalties.delete(created.id!);
    await ctx.target.jobs?.idle();
    expect(await refusal(sdk.loyalties.get(created.id!))).toMatchObject({ code: 404, key: 'not_found' });
  });

  test('when earning rules are created, listed, updated and deleted with every field, then paid orders earn by the rule in force', async () => {
    const { sdk } = node;
    const club = await program();
    const member: Card = await sdk.loyalties.createMember(club.id!, { customer: { source_id: unique('node-earner') } });
    const ruleId = (await sdk.validationRules.create({ name: unique('SDK node any order') })).id;
    const rule = {
      event: 'order.paid',
      loyalty: { type: 'PROPORTIONAL', calculation_type: 'ORDER_AMOUNT', order: { amount: { every: 1000, points: 2 } }, max_points: 500 },
      // For custom event rules only.
      custom_event: null,
      validation_rule_id: ruleId,
      expiration_rules: { period_type: 'MONTH', period_value: 6 },
      source: { banner: '2 points for every 10.00' },
      loyalty_tier: null,
      segment: null,
      // Null adds the points at once.
      pending_points: null,
      active: true,
      start_date: '2020-01-01T00:00:00.000Z',
      expiration_date: '2099-01-01T00:00:00.000Z',
      validity_timeframe: { interval: 'P1D', duration: 'P1D' },
      validity_day_of_week: [0, 1, 2, 3, 4, 5, 6],
      validity_hours: { daily: [{ start_time: '00:00', expiration_time: '23:59', days_of_week: [0, 1, 2, 3, 4, 5, 6] }] },
      metadata: { team: 'growth' },
    } satisfies Required<EarningRuleBody>;
    const created: Reply<'create-earning-rule'> = await sdk.loyalties.createEarningRule(club.id!, [rule]);
    expect(created).toHaveLength(1);
    const earning = known(created[0]!, 'id');
    expect(earning).toMatchObject({
      campaign_id: club.id,
      event: 'order.paid',
      loyalty: rule.loyalty,
      validation_rule_id: ruleId,
      expiration_rules: { period_type: 'MONTH', period_value: 6 },
      source: { banner: rule.source.banner },
      pending_points: null,
      active: true,
      start_date: rule.start_date,
      validity_timeframe: rule.validity_timeframe,
      validity_day_of_week: rule.validity_day_of_week,
      metadata: { team: 'growth' },
      object: 'earning_rule',
    });

    const everyParameter = { limit: 10, page: 1, order: 'created_at' } satisfies Required<Query<'list-earning-rules'>>;
    const listed: Reply<'list-earning-rules'> = await sdk.loyalties.listEarningRules(club.id!, everyParameter);
    expect(listed).toMatchObject({ object: 'list', data_ref: 'data', total: 1 });
    expect(known(listed, 'data').data.map((entry) => entry.id)).toEqual([earning.id]);

    const customerId = known(member, 'holder_id').holder_id!;
    const pay = async (amount: number) => {
      const order = await sdk.orders.create({ source_id: unique('node-paid'), status: 'PAID', amount, customer: { id: customerId } });
      expect(order).toMatchObject({ status: 'PAID' });
      await ctx.target.jobs?.idle();
      return (await sdk.loyalties.getMember(club.id!, known(member, 'code').code)).loyalty_card?.points;
    };
    expect(await pay(5000)).toBe(10);

    const changes = {
      id: earning.id,
      event: 'order.paid',
      loyalty: { type: 'FIXED', points: 7 },
      custom_event: null,
      validation_rule_id: null,
      expiration_rules: null,
      source: { banner: '7 points an order' },
      loyalty_tier: null,
      segment: null,
      pending_points: null,
      active: true,
      start_date: '2020-06-01T00:00:00.000Z',
      expiration_date: null,
      validity_timeframe: null,
      validity_day_of_week: null,
      validity_hours: null,
      metadata: { team: 'retention' },
    } satisfies Required<Body<'update-earning-rule'>> & { id: string };
    const updated: Reply<'update-earning-rule'> = await sdk.loyalties.updateEarningRule(club.id!, changes);
    expect(updated).toMatchObject({ id: earning.id, loyalty: { type: 'FIXED', points: 7 }, validation_rule_id: null, source: { banner: '7 points an order' }, metadata: { team: 'retention' } });
    expect(await pay(5000)).toBe(17);

    await sdk.loyalties.deleteEarningRule(club.id!, earning.id);
    expect((await sdk.loyalties.listEarningRules(club.id!)).data).toEqual([]);
    expect(await pay(5000)).toBe(17);
    expect(await refusal(sdk.loyalties.deleteEarningRule(club.id!, earning.id))).toMatchObject({ code: 404 });
  });

  test('when a member joins with every field and gains points, then the member lists find the card, and rewards spend its points', async () => {
    const { sdk } = node;
    const club = await sdk.loyalties.create({ name: unique('SDK node loyalty'), voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } }, vouchers_count: 1 });
    const [spare] = (await sdk.vouchers.list({ campaign_id: club.id })).vouchers ?? [];
    const sourceId = unique('node-member');
    const joining = {
      // A card the program already made, not yet given to anyone.
      voucher: known(spare, 'code').code,
      customer: {
        id: null,
        source_id: sourceId,
        name: 'Grace Member',
        description: 'Joined at the counter',
        email: `${sourceId}@example.com`,
        phone: '+48 600 200 300',
        birthday: null,
        birthdate: '1985-12-09',
        address: { city: 'Krakow', state: null, line_1: null, line_2: null, country: 'Poland', postal_code: null },
        metadata: { newsletter: true },
      },
      metadata: { desk: 3 },
      channel: 'store',
      source_id: unique('node-join'),
    } satisfies Required<Body<'add-member'>>;
    const card: Card = await sdk.loyalties.createMember(club.id!, joining);
    expect(card).toMatchObject({ code: joining.voucher, campaign_id: club.id, type: 'LOYALTY_CARD', loyalty_card: { points: 0, balance: 0 }, object: 'voucher' });
    const code = known(card, 'code').code;
    const customer = await sdk.customers.get(sourceId);
    expect(customer).toMatchObject({ name: 'Grace Member', email: joining.customer.email, birthdate: '1985-12-09', address: { city: 'Krakow' }, metadata: { newsletter: true } });
    expect(card.holder_id).toBe(customer.id);

    const everyFilter = {
      limit: 10,
      page: 1,
      customer: sourceId,
      code,
      ids: [known(card, 'id').id],
      created_at: { after: '2020-01-01' },
      updated_at: { after: '2020-01-01' },
      order: 'code',
    } satisfies Required<Query<'list-members'>>;
    // Giving out a card updates it, so `updated_at` has a value to filter on.
    const members: Reply<'list-members'> = await sdk.loyalties.listMembers(club.id!, everyFilter);
    expect(members).toMatchObject({ object: 'list', data_ref: 'vouchers', total: 1 });
    expect(known(members, 'vouchers').vouchers.map((entry) => entry.code)).toEqual([code]);

    const points = {
      points: 400,
      reason: 'Welcome bonus',
      source_id: unique('node-bonus'),
      expiration_type: 'CUSTOM_DATE',
      expiration_date: '2099-06-30T00:00:00.000Z',
    } satisfies Required<Body<'update-loyalty-card-balance-1'>>;
    const balance: Reply<'update-loyalty-card-balance-1'> = await sdk.loyalties.addPoints(club.id!, code, points);
    expect(balance).toMatchObject({ points: 400, total: 400, balance: 400, type: 'loyalty_card', object: 'balance' });
    expect(await sdk.loyalties.getMember(club.id!, code)).toMatchObject({ code, loyalty_card: { points: 400, balance: 400 } });

    // A reward that pays for orders with points (10 points pay 1.00), offered in the program.
    const coin: Reward = await sdk.rewards.create({ name: unique('Pay with points'), type: 'COIN', parameters: { coin: { exchange_ratio: 100, points_ratio: 10 } } });
    const offered: Assignment = await sdk.rewards.createAssignment(coin.id, { campaign: club.id! });
    const redemption = {
      reward: { id: offered.id, points: 150 },
      // A new order (an `id` would name a stored one); the amounts the server computes are ignored.
      order: {
        source_id: unique('node-coin-order'),
        status: 'CREATED',
        amount: 5000,
        initial_amount: 0,
        discount_amount: 0,
        items: [{ quantity: 1, price: 5000 }],
        metadata: { till: 2 },
      } satisfies Required<Omit<Body<'redeem-reward-1'>['order'] & object, 'id'>>,
      metadata: { cashier: 'Ola' },
    } satisfies Required<Body<'redeem-reward-1'>>;
    const spent: Reply<'redeem-reward-1'> = await sdk.loyalties.redeemReward(club.id!, code, redemption);
    expect(spent).toMatchObject({ result: 'SUCCESS', metadata: { cashier: 'Ola' }, object: 'redemption' });
    expect(spent.order).toMatchObject({ amount: 5000, discount_amount: 1500, total_amount: 3500 });
    // 1500 of money at 10 points per 1.00: 150 points off the balance (`points` counts all ever earned).
    expect(await sdk.loyalties.getMember(club.id!, code)).toMatchObject({ loyalty_card: { points: 400, balance: 250 } });
  });
});

describe('the Node.js SDK: rewards', () => {
  test('when rewards of each type are created, listed, updated and deleted with every field, then they read back as sent', async () => {
    const { sdk } = node;
    const gifts = await sdk.campaigns.create({ name: unique('SDK node gift cards'), campaign_type: 'GIFT_VOUCHERS', voucher: { type: 'GIFT_VOUCHER', gift: { amount: 1000 } } });
    const product = await sdk.products.create({ source_id: unique('node-mug'), name: `Mug ${RUN}`, price: 1500 });
    const sku = await sdk.products.createSku(known(product, 'id').id, { source_id: unique('node-mug-blue'), sku: `Blue mug ${RUN}` });
    // A reward gives exactly one thing: a campaign's voucher, payment with points, or a product.
    const parts = {
      campaign: { id: gifts.id, balance: 2500, type: 'GIFT_VOUCHERS' },
      coin: { exchange_ratio: 100, points_ratio: 20 },
      product: { id: product.id!, sku_id: sku.id! },
    } satisfies Required<RewardParameters>;
    const common = { stock: null, attributes: { image_url: 'https://images.example.com/reward.png', description: 'For our regulars' }, metadata: { shelf: 'rewards' } };
    const made: Reward[] = [];
    for (const [type, parameters] of [
      ['CAMPAIGN', { campaign: parts.campaign }],
      ['COIN', { coin: parts.coin }],
      ['MATERIAL', { product: parts.product }],
    ] as const) {
      const reward = { name: unique(`SDK node ${type}`), type, parameters, ...common, stock: type === 'MATERIAL' ? 20 : null } satisfies Required<Body<'create-reward'>>;
      const created: Reward = await sdk.rewards.create(reward);
      expect(created).toMatchObject({ name: reward.name, type, stock: reward.stock, attributes: common.attributes, metadata: common.metadata, object: 'reward' });
      made.push(created);
    }
    expect(made[0]!.parameters).toMatchObject({ campaign: { id: gifts.id, balance: 2500, type: 'GIFT_VOUCHERS' } });
    expect(made[1]!.parameters).toMatchObject({ coin: { exchange_ratio: 100, points_ratio: 20 } });
    expect(made[2]!.parameters).toMatchObject({ product: { id: product.id, sku_id: sku.id } });
    const material = made[2]!;
    expect(await sdk.rewards.get(material.id)).toEqual(material);

    const club = await program();
    const assignment = {
      campaign: club.id!,
      parameters: { loyalty: { points: 300, auto_redeem: false } },
      // Rules for paying with points; accepted and ignored for this product reward.
      validation_rules: [],
    } satisfies Required<Body<'create-reward-assignment'>>;
    const offered: Assignment = await sdk.rewards.createAssignment(material.id, assignment);
    expect(offered).toMatchObject({ reward_id: material.id, related_object_id: club.id, related_object_type: 'campaign', parameters: { loyalty: { points: 300, auto_redeem: false } }, object: 'reward_assignment' });

    const everyFilter = { limit: 10, page: 1, assignment_id: offered.id } satisfies Required<Query<'list-rewards'>>;
    const listed: Reply<'list-rewards'> = await sdk.rewards.list(everyFilter);
    expect(listed).toMatchObject({ object: 'list', data_ref: 'data', total: 1 });
    expect(known(listed, 'data').data.map((entry) => entry.id)).toEqual([material.id]);

    const everyParameter = { limit: 10, page: 1 } satisfies Required<Query<'list-reward-assignments'>>;
    const assignments: Reply<'list-reward-assignments'> = await sdk.rewards.listAssignments(material.id, everyParameter);
    expect(assignments).toMatchObject({ object: 'list', data_ref: 'data', total: 1 });
    expect(known(assignments, 'data').data.map((entry) => entry.id)).toEqual([offered.id]);

    // `updateAssignment` and `update` take the `id` out of the body and into the path.
    const newPrice = { id: offered.id, parameters: { loyalty: { points: 250, auto_redeem: null } } } satisfies Required<Body<'update-reward-assignment'>> & { id: string };
    const repriced: Assignment = await sdk.rewards.updateAssignment(material.id, newPrice);
    expect(repriced).toMatchObject({ id: offered.id, parameters: { loyalty: { points: 250 } } });

    const changes = {
      id: material.id,
      name: unique('SDK node mug reward'),
      parameters: { product: { id: product.id!, sku_id: null } },
      stock: 5,
      attributes: { image_url: null, description: 'Any colour' },
      metadata: { shelf: 'top' },
    } satisfies Required<Body<'update-reward'>> & { id: string };
    const updated: Reward = await sdk.rewards.update(changes);
    expect(updated).toMatchObject({ id: material.id, name: changes.name, stock: 5, attributes: changes.attributes, metadata: { shelf: 'top' }, updated_at: expect.any(String) });
    expect(updated.parameters).toMatchObject({ product: { id: product.id, sku_id: null } });

    await sdk.rewards.deleteAssignment(material.id, offered.id);
    expect((await sdk.rewards.listAssignments(material.id)).data).toEqual([]);
    for (const reward of made) await sdk.rewards.delete(reward.id);
    expect(await refusal(sdk.rewards.get(material.id))).toMatchObject({ code: 404, key: 'not_found' });
  });
});

describe('the Node.js SDK: coverage', () => {
  test('every method of loyalties and rewards that reaches the contract was called', () => {
    // Methods reaching the deprecated per-program reward assignments are sdk-node-programs.test.ts's.
    const theirs = new Set(nodeSdkMethods(JSON.parse(readFileSync(BUNDLED_CONTRACT, 'utf8'))).filter((method) => method.operationId && PROGRAM_OPERATIONS.has(method.operationId)).map((method) => method.name));
    expectAllCalled(node.calls, inventoryOf(['loyalties', 'rewards']).filter((name) => !theirs.has(name)));
  });
});
