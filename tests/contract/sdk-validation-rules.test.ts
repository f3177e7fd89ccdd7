/**
 * `@voucherify/sdk` (server-side), unmodified, against the target: validation rules and their assignments.
 * Each request is typed with the SDK's own declarations and filled in completely (`Complete<T>` makes every
 * optional field, however deep, required, so a field the SDK declares and the test leaves out fails to
 * compile); each response is read through the type the SDK declares for it. What a rule does is checked by
 * validating what it is assigned to.
 */
import { describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import sdk from '@voucherify/sdk';
import type {
  ValidationRulesCreate,
  ValidationRulesCreateAssignment,
  ValidationRulesCreateAssignmentResponse,
  ValidationRulesCreateResponse,
  ValidationRulesGetResponse,
  ValidationRulesListAssignmentsParams,
  ValidationRulesListAssignmentsResponse,
  ValidationRulesListParams,
  ValidationRulesListResponse,
  ValidationRulesListRulesAssignmentsRequestQuery,
  ValidationRulesListRulesAssignmentsResponseBody,
  ValidationRulesUpdate,
} from '@voucherify/sdk';
import { BUNDLED_CONTRACT } from '../../server/paths.js';
import { recording, voucherifySdkMethods } from './sdk-methods.js';
import { unique, useTarget } from './target.js';

/** Every field of a request type, however deep, made required (and never null). */
type Complete<T> = T extends (infer Item)[] ? Complete<Item>[] : T extends object ? { [Key in keyof T]-?: Complete<NonNullable<T[Key]>> } : T;

const { VoucherifyServerSide } = sdk;
const NAMESPACES = ['validationRules'];

const ctx = useTarget();
const calls = new Set<string>();

function serverSide() {
  const { appId, appToken } = ctx.target.credentials;
  return recording(VoucherifyServerSide({ applicationId: appId, secretKey: appToken, apiUrl: ctx.target.baseUrl }), calls);
}

/** What a refused SDK call throws, as plain fields. */
async function refusal(call: Promise<unknown>) {
  try {
    await call;
  } catch (error) {
    const { code, key } = error as { code: number; key: string };
    return { code, key };
  }
  throw new Error('the call succeeded');
}

/** Spend 50.00, or be a gold customer. */
const bigOrGold = {
  name: 'Big orders or gold customers',
  error: { message: 'Spend 50.00 or join gold' },
  rules: {
    '1': { name: 'order.amount', conditions: { $more_than_or_equal: [5000] } },
    '2': { name: 'customer.metadata', property: 'tier', conditions: { $is: ['gold'] } },
    logic: '1 or 2',
  },
};

async function discountVoucher() {
  const code = unique('SDK-VR');
  const made = await ctx.client.POST('/v1/vouchers/{code}', { params: { path: { code } }, body: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 500 } } });
  expect(made.response.status).toBe(200);
  return { id: made.data!.id!, code };
}

/** Whether the redeemable validates for the order and customer; with the rule's own message when it does not. */
async function validates(redeemable: { object: 'voucher' | 'promotion_tier'; id: string }, amount: number, customer: { source_id: string; metadata?: Record<string, unknown> }) {
  const result = await ctx.client.POST('/v1/validations', { body: { redeemables: [redeemable], order: { amount }, customer } });
  expect(result.response.status).toBe(200);
  const refused = result.data!.inapplicable_redeemables?.[0] as { result?: { error?: { key?: string; error?: { message?: string } } } } | undefined;
  return { valid: result.data!.valid, key: refused?.result?.error?.key, message: refused?.result?.error?.error?.message };
}

describe('the SDK: validation rules', () => {
  test('when a rule is created, read, listed, updated and deleted, then each step is kept', async () => {
    const client = serverSide();
    const body = { ...bigOrGold, name: unique(bigOrGold.name) } satisfies Complete<ValidationRulesCreate>;
    const created: ValidationRulesCreateResponse = await client.validationRules.create(body);
    expect(created).toMatchObject({ id: expect.stringMatching(/^val_/), name: body.name, error: body.error, rules: body.rules, object: 'validation_rules', created_at: expect.any(String) });

    const read: ValidationRulesGetResponse = await client.validationRules.get(created.id);
    expect(read).toMatchObject({ id: created.id, name: body.name, rules: body.rules, error: body.error });
    // The SDK declares the count as a string; the API gives a number.
    expect(Number(read.assignments_count)).toBe(0);

    const second = await client.validationRules.create({ name: unique('Second rule'), rules: { '1': { name: 'order.items.count', conditions: { $more_than: [1] } } } });
    const query = { limit: 100, page: 1 } satisfies Complete<ValidationRulesListParams>;
    const listed: ValidationRulesListResponse = await client.validationRules.list(query);
    expect(listed).toMatchObject({ object: 'list', data_ref: 'data' });
    expect(listed.data.map((rule) => rule.id)).toEqual(expect.arrayContaining([created.id, second.id]));

    const update = {
      id: created.id,
      name: unique('Big orders and gold customers'),
      error: { message: 'Spend 50.00 as a gold member' },
      rules: { ...bigOrGold.rules, logic: '1 and 2' },
    } satisfies Complete<ValidationRulesUpdate>;
    const updated: ValidationRulesCreateResponse = await client.validationRules.update(update);
    expect(updated).toMatchObject({ id: created.id, name: update.name, error: update.error, rules: { logic: '1 and 2' }, updated_at: expect.any(String) });
    expect(await client.validationRules.get(created.id)).toMatchObject({ name: update.name, rules: { logic: '1 and 2' } });

    await client.validationRules.delete(second.id);
    expect(await refusal(client.validationRules.get(second.id))).toEqual({ code: 404, key: 'not_found' });
  });

  test('when a rule is assigned to a voucher, a campaign and a promotion tier, then each validates by it until unassigned', async () => {
    const client = serverSide();
    const rule = await client.validationRules.create({ ...bigOrGold, name: unique(bigOrGold.name) });
    const voucher = await discountVoucher();
    const campaign = (
      await ctx.client.POST('/v1/campaigns', {
        body: { name: unique('SDK rules campaign'), campaign_type: 'DISCOUNT_COUPONS', voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 300 } }, vouchers_count: 1 },
      })
    ).data!;
    const campaignCode = (await ctx.client.GET('/v1/vouchers', { params: { query: { campaign_id: campaign.id } } })).data!.vouchers![0]!.code!;
    const promotion = (
      await ctx.client.POST('/v1/campaigns', {
        body: { name: unique('SDK rules promotion'), campaign_type: 'PROMOTION', promotion: { tiers: [{ name: 'Five off', action: { discount: { type: 'AMOUNT', amount_off: 500 } } }] } },
      })
    ).data!;
    const tierId = (promotion as unknown as { promotion: { tiers: { id: string }[] } }).promotion.tiers[0]!.id;

    // An assignment names one object; the SDK's three fields are the three kinds it can name.
    const toVoucher = { voucher: voucher.code } satisfies Complete<Pick<ValidationRulesCreateAssignment, 'voucher'>>;
    const toCampaign = { campaign: campaign.id! } satisfies Complete<Pick<ValidationRulesCreateAssignment, 'campaign'>>;
    const toTier = { promotion_tier: tierId } satisfies Complete<Pick<ValidationRulesCreateAssignment, 'promotion_tier'>>;
    const assignments: ValidationRulesCreateAssignmentResponse[] = [];
    for (const body of [toVoucher, toCampaign, toTier] satisfies ValidationRulesCreateAssignment[]) assignments.push(await client.validationRules.createAssignment(rule.id, body));
    expect(assignments.map(({ related_object_type, related_object_id, rule_id, object }) => ({ related_object_type, related_object_id, rule_id, object }))).toEqual([
      { related_object_type: 'voucher', related_object_id: voucher.id, rule_id: rule.id, object: 'validation_rules_assignment' },
      { related_object_type: 'campaign', related_object_id: campaign.id, rule_id: rule.id, object: 'validation_rules_assignment' },
      { related_object_type: 'promotion_tier', related_object_id: tierId, rule_id: rule.id, object: 'validation_rules_assignment' },
    ]);
    expect(Number((await client.validationRules.get(rule.id)).assignments_count)).toBe(3);

    const plain = { source_id: unique('sdk-plain') };
    const gold = { source_id: unique('sdk-gold'), metadata: { tier: 'gold' } };
    for (const redeemable of [
      { object: 'voucher' as const, id: voucher.code },
      { object: 'voucher' as const, id: campaignCode },
      { object: 'promotion_tier' as const, id: tierId },
    ]) {
      expect(await validates(redeemable, 6000, plain)).toMatchObject({ valid: true });
      expect(await validates(redeemable, 3000, gold)).toMatchObject({ valid: true });
      expect(await validates(redeemable, 3000, plain)).toEqual({ valid: false, key: 'order_rules_violated', message: 'Spend 50.00 or join gold' });
    }

    const pageQuery = { limit: 2, page: 2 } satisfies Complete<ValidationRulesListAssignmentsParams>;
    const page: ValidationRulesListAssignmentsResponse = await client.validationRules.listAssignments(rule.id, pageQuery);
    expect(page).toMatchObject({ object: 'list', data_ref: 'data', total: 3 });
    expect(page.data).toHaveLength(1);

    const acrossQuery = { related_object_id: campaign.id!, rule: rule.id, page: 1, limit: 10, order: '-created_at' } satisfies Complete<ValidationRulesListRulesAssignmentsRequestQuery>;
    const across: ValidationRulesListRulesAssignmentsResponseBody = await client.validationRules.listRulesAssignments(acrossQuery);
    expect(across).toMatchObject({ object: 'list', data_ref: 'data', total: 1 });
    expect(across.data).toEqual([expect.objectContaining({ id: assignments[1]!.id, rule_id: rule.id, related_object_id: campaign.id, related_object_type: 'campaign' })]);
    const allOfRule = await client.validationRules.listRulesAssignments({ rule: rule.id, order: 'created_at' });
    expect(allOfRule.data.map((assignment) => assignment.id)).toEqual(assignments.map((assignment) => assignment.id));

    await client.validationRules.deleteAssignment(rule.id, assignments[0]!.id);
    expect(await validates({ object: 'voucher', id: voucher.code }, 3000, plain)).toMatchObject({ valid: true });
    expect(await validates({ object: 'voucher', id: campaignCode }, 3000, plain)).toMatchObject({ valid: false });
    expect((await client.validationRules.listAssignments(rule.id)).total).toBe(2);
    expect(await refusal(client.validationRules.deleteAssignment(rule.id, assignments[0]!.id))).toMatchObject({ code: 404 });
  });
});

describe('the SDK: coverage', () => {
  test('every method of validationRules that reaches the contract was called', () => {
    const contract = JSON.parse(readFileSync(BUNDLED_CONTRACT, 'utf8'));
    const expected = voucherifySdkMethods(contract)
      .filter((method) => method.operationId && NAMESPACES.includes(method.name.split('.')[0]!))
      .map((method) => method.name);
    const called = [...calls].filter((name) => NAMESPACES.includes(name.split('.')[0]!));
    expect([...new Set(expected)].filter((name) => !called.includes(name)).sort()).toEqual([]);
  });
});
