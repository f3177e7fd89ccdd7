/**
 * A project's stacking rules: written through the management API, enforced by every validation and
 * redemption of the project, and reported in `stacking_rules`. Each scenario uses a project of its own, so
 * its rules touch no other test.
 */
import { describe, expect, test } from '@jest/globals';
import type { ApiClient } from '../../client/index.js';
import { expectError, failed } from './expect-error.js';
import { clientFor, managementClientFor, raw, runsWith, unique, useTarget } from './target.js';

const ctx = useTarget();
const describeManaged = runsWith(describe, ['management']);
const mgmt = () => managementClientFor(ctx.target);

/** The defaults a project without stacking rules runs under. */
const DEFAULTS = {
  redeemables_limit: 30,
  applicable_redeemables_limit: 5,
  applicable_redeemables_per_category_limit: 1,
  applicable_redeemables_category_limits: {},
  applicable_exclusive_redeemables_limit: 1,
  applicable_exclusive_redeemables_per_category_limit: 1,
  exclusive_categories: [],
  joint_categories: [],
  redeemables_application_mode: 'ALL',
  redeemables_sorting_rule: 'REQUESTED_ORDER',
  redeemables_products_application_mode: 'STACK',
  redeemables_no_effect_rule: 'REDEEM_ANYWAY',
  no_effect_skip_categories: [],
  no_effect_redeem_anyway_categories: [],
  redeemables_rollback_order_mode: 'WITHOUT_ORDER',
};

interface Project {
  id: string;
  client: ApiClient;
}

async function newProject(): Promise<Project> {
  const made = await mgmt().POST('/management/v1/projects', { body: { name: unique('Stacking'), currency: 'EUR' } });
  expect(made.response.status).toBe(200);
  const key = made.data!.server_side_key!;
  return { id: made.data!.id!, client: clientFor(ctx.target, { appId: key.app_id, appToken: key.app_token }) };
}

async function setRules(project: Project, body: Record<string, unknown>) {
  const made = await mgmt().POST('/management/v1/projects/{projectId}/stacking-rules', { params: { path: { projectId: project.id } }, body: body as never });
  expect(made.response.status).toBe(200);
  return made.data!;
}

async function category(project: Project, hierarchy = 1) {
  const made = await project.client.POST('/v1/categories', { body: { name: unique('Cat'), hierarchy } });
  expect(made.response.status).toBe(200);
  return made.data!.id;
}

async function voucher(project: Project, discount: Record<string, unknown>, categoryId?: string) {
  const code = unique('STK');
  const made = await project.client.POST('/v1/vouchers/{code}', {
    params: { path: { code } },
    body: { type: 'DISCOUNT_VOUCHER', discount, ...(categoryId && { category_id: categoryId }) } as never,
  });
  expect(made.response.status).toBe(200);
  return code;
}

const off = (amount: number) => ({ type: 'AMOUNT', amount_off: amount });
const asVouchers = (...codes: string[]) => codes.map((id) => ({ object: 'voucher' as const, id }));

async function validate(project: Project, body: Record<string, unknown>) {
  const result = await project.client.POST('/v1/validations', { body: body as never });
  expect(result.response.status).toBe(200);
  return result.data!;
}

describeManaged('stacking rules through the management API', () => {
  test('when rules are created with some settings, then the rest take the defaults; they read back, list, update and delete', async () => {
    const project = await newProject();
    const path = { params: { path: { projectId: project.id } } };
    const empty = await mgmt().GET('/management/v1/projects/{projectId}/stacking-rules', path);
    expect(empty.data).toEqual({ object: 'list', data_ref: 'data', data: [], total: 0 });

    const exclusive = await category(project);
    const made = await setRules(project, { applicable_redeemables_limit: 3, exclusive_categories: [exclusive, exclusive], redeemables_application_mode: 'PARTIAL' });
    expect(made).toEqual({
      ...DEFAULTS,
      id: expect.stringMatching(/^stk_/),
      applicable_redeemables_limit: 3,
      exclusive_categories: [exclusive],
      redeemables_application_mode: 'PARTIAL',
      discount_calculation_mode: 'DISCOUNTED_AMOUNT',
      initial_amount_mode_categories: [],
      discounted_amount_mode_categories: [],
      created_at: expect.any(String),
    });
    const rulesPath = { params: { path: { projectId: project.id, stackingRulesId: made.id! } } };
    expect((await mgmt().GET('/management/v1/projects/{projectId}/stacking-rules/{stackingRulesId}', rulesPath)).data).toEqual(made);
    expect((await mgmt().GET('/management/v1/projects/{projectId}/stacking-rules', path)).data).toEqual({ object: 'list', data_ref: 'data', data: [made], total: 1 });

    // A project has one set: a second one is refused.
    expectError(failed(await mgmt().POST('/management/v1/projects/{projectId}/stacking-rules', { ...path, body: {} })), 409, 'duplicate_found');

    const updated = await mgmt().PUT('/management/v1/projects/{projectId}/stacking-rules/{stackingRulesId}', {
      ...rulesPath,
      body: { applicable_redeemables_per_category_limit: null, applicable_redeemables_category_limits: { [exclusive]: 2 }, redeemables_no_effect_rule: 'SKIP' },
    });
    expect(updated.response.status).toBe(200);
    expect(updated.data).toEqual({
      ...made,
      applicable_redeemables_per_category_limit: null,
      applicable_redeemables_category_limits: { [exclusive]: 2 },
      redeemables_no_effect_rule: 'SKIP',
      updated_at: expect.any(String),
    });
    // Validations report the project's rules.
    const validation = await validate(project, { redeemables: asVouchers(await voucher(project, off(100))), order: { amount: 1000 } });
    expect(validation.stacking_rules).toMatchObject({ applicable_redeemables_limit: 3, applicable_redeemables_per_category_limit: null, exclusive_categories: [exclusive] });

    const deleted = await mgmt().DELETE('/management/v1/projects/{projectId}/stacking-rules/{stackingRulesId}', rulesPath);
    expect(deleted.response.status).toBe(204);
    expectError(failed(await mgmt().GET('/management/v1/projects/{projectId}/stacking-rules/{stackingRulesId}', rulesPath)), 404, 'not_found');
    expectError(failed(await mgmt().DELETE('/management/v1/projects/{projectId}/stacking-rules/{stackingRulesId}', rulesPath)), 404, 'not_found');
    const after = await validate(project, { redeemables: asVouchers(await voucher(project, off(100))), order: { amount: 1000 } });
    expect(after.stacking_rules).toEqual(DEFAULTS);
  });

  test('when rules name an unknown category, a category twice in opposite roles, a limit out of range, or an unknown project, then they are refused', async () => {
    const project = await newProject();
    const path = { params: { path: { projectId: project.id } } };
    const cat = await category(project);
    expectError(failed(await mgmt().POST('/management/v1/projects/{projectId}/stacking-rules', { ...path, body: { joint_categories: ['cat_missing'] } })), 404, 'not_found');
    expectError(
      failed(await mgmt().POST('/management/v1/projects/{projectId}/stacking-rules', { ...path, body: { exclusive_categories: [cat], joint_categories: [cat] } })),
      400,
      'invalid_stacking_rules',
    );
    for (const body of [{ redeemables_limit: 31 }, { applicable_redeemables_limit: 0 }, { applicable_exclusive_redeemables_limit: 6 }, { applicable_redeemables_category_limits: { [cat]: 11 } }, { redeemables_sorting_rule: 'RANDOM' }]) {
      const response = await raw(ctx.target, 'POST', `/management/v1/projects/${project.id}/stacking-rules`, { body: JSON.stringify(body) });
      expect({ body, status: response.status }).toEqual({ body, status: 400 });
    }
    expect((await mgmt().GET('/management/v1/projects/{projectId}/stacking-rules', path)).data!.total).toBe(0);
    expectError(failed(await mgmt().GET('/management/v1/projects/{projectId}/stacking-rules', { params: { path: { projectId: 'proj_missing' } } })), 404, 'not_found');
  });
});

describeManaged('validations and redemptions under a project\'s stacking rules', () => {
  test('when a request carries more redeemables than the project allows, then it is refused; beyond the applicable limit they are skipped and not redeemed', async () => {
    const project = await newProject();
    await setRules(project, { redeemables_limit: 3, applicable_redeemables_limit: 2 });
    const codes = [await voucher(project, off(100)), await voucher(project, off(200)), await voucher(project, off(300)), await voucher(project, off(400))];

    const tooMany = await project.client.POST('/v1/validations', { body: { redeemables: asVouchers(...codes), order: { amount: 10000 } } });
    expect(expectError(failed(tooMany), 400, 'invalid_payload').details).toMatch(/at most 3 redeemables/);
    const refusedRedemption = await project.client.POST('/v1/redemptions', { body: { redeemables: asVouchers(...codes), order: { amount: 10000 } } });
    expectError(failed(refusedRedemption), 400, 'invalid_payload');
    // Nothing was redeemed, nor recorded as failed.
    expect((await project.client.GET('/v1/redemptions', {})).data!.total).toBe(0);

    const validation = await validate(project, { redeemables: asVouchers(...codes.slice(0, 3)), order: { amount: 10000 } });
    expect(validation.valid).toBe(true);
    expect(validation.redeemables.map((r) => [r.id, r.status])).toEqual([
      [codes[0], 'APPLICABLE'],
      [codes[1], 'APPLICABLE'],
      [codes[2], 'SKIPPED'],
    ]);
    expect(validation.skipped_redeemables).toEqual([
      expect.objectContaining({ id: codes[2], status: 'SKIPPED', result: { details: { key: 'applicable_redeemables_limit_exceeded', message: expect.any(String) } } }),
    ]);
    expect(validation.order).toMatchObject({ discount_amount: 300, total_amount: 9700 });
    expect(validation.stacking_rules).toMatchObject({ redeemables_limit: 3, applicable_redeemables_limit: 2 });

    const redeemed = await project.client.POST('/v1/redemptions', { body: { redeemables: asVouchers(...codes.slice(0, 3)), order: { amount: 10000 } } });
    expect(redeemed.response.status).toBe(200);
    expect(redeemed.data!.redemptions!.map((r) => r.voucher?.code)).toEqual(codes.slice(0, 2));
    expect(redeemed.data!.skipped_redeemables!.map((r) => r.id)).toEqual([codes[2]]);
    const third = await project.client.GET('/v1/vouchers/{code}', { params: { path: { code: codes[2]! } } });
    expect(third.data!.redemption!.redeemed_quantity).toBe(0);
  });

  test('when a project has no stacking rules, then the defaults hold: at most five apply and one per category', async () => {
    const project = await newProject();
    const cat = await category(project);
    const codes: string[] = [];
    for (let i = 1; i <= 6; i++) codes.push(await voucher(project, off(i * 10)));
    const categorized = [await voucher(project, off(1), cat), await voucher(project, off(2), cat)];
    const validation = await validate(project, { redeemables: asVouchers(...categorized, ...codes), order: { amount: 10000 } });
    expect(validation.stacking_rules).toEqual(DEFAULTS);
    expect(validation.redeemables.map((r) => r.status === 'SKIPPED' && r.result.details?.key)).toEqual([
      false,
      'applicable_redeemables_per_category_limit_exceeded',
      false,
      false,
      false,
      false,
      'applicable_redeemables_limit_exceeded',
      'applicable_redeemables_limit_exceeded',
    ]);
  });

  test('when a redeemable of an exclusive category applies, then only exclusive and joint ones apply with it, exclusive first', async () => {
    const project = await newProject();
    const exclusive = await category(project);
    const joint = await category(project);
    const plainCategory = await category(project);
    await setRules(project, { exclusive_categories: [exclusive], joint_categories: [joint], applicable_redeemables_per_category_limit: null });
    const plain = await voucher(project, off(100), plainCategory);
    const uncategorized = await voucher(project, off(50));
    const first = await voucher(project, off(1000), exclusive);
    const second = await voucher(project, off(500), exclusive);
    const always = await voucher(project, off(200), joint);
    const validation = await validate(project, {
      redeemables: asVouchers(plain, first, uncategorized, always, second),
      order: { amount: 10000 },
      options: { expand: ['category'] },
    });
    expect(validation.redeemables.map((r) => [r.id, r.status, r.status === 'SKIPPED' ? r.result.details?.key : r.result.discount_amount])).toEqual([
      [first, 'APPLICABLE', 1000],
      [second, 'SKIPPED', 'applicable_exclusive_redeemables_limit_exceeded'],
      [plain, 'SKIPPED', 'exclusion_rules_not_met'],
      [uncategorized, 'SKIPPED', 'exclusion_rules_not_met'],
      [always, 'APPLICABLE', 200],
    ]);
    expect(validation.redeemables[0]!.categories).toEqual([expect.objectContaining({ id: exclusive, stacking_rules_type: 'EXCLUSIVE' })]);
    expect(validation.redeemables[4]!.categories).toEqual([expect.objectContaining({ id: joint, stacking_rules_type: 'JOINT' })]);
    expect(validation.order).toMatchObject({ discount_amount: 1200, total_amount: 8800 });
    // Without the exclusive one, the others stack as usual.
    const without = await validate(project, { redeemables: asVouchers(plain, uncategorized, always), order: { amount: 10000 } });
    expect(without.redeemables.map((r) => r.status)).toEqual(['APPLICABLE', 'APPLICABLE', 'APPLICABLE']);
  });

  test('when redeemables are sorted by category hierarchy, then the highest-ranked applies first, and category limits bind per category', async () => {
    const project = await newProject();
    const top = await category(project, 1);
    const lower = await category(project, 5);
    const amount = await voucher(project, off(1000), lower);
    const percent = await voucher(project, { type: 'PERCENT', percent_off: 50 }, top);
    const uncategorized = await voucher(project, off(100));
    const inRequestOrder = await validate(project, { redeemables: asVouchers(uncategorized, amount, percent), order: { amount: 10000 } });
    expect(inRequestOrder.order!.discount_amount).toBe(100 + 1000 + 4450);

    await setRules(project, { redeemables_sorting_rule: 'CATEGORY_HIERARCHY', applicable_redeemables_category_limits: { [lower]: 2 } });
    const sorted = await validate(project, { redeemables: asVouchers(uncategorized, amount, percent), order: { amount: 10000 } });
    expect(sorted.redeemables.map((r) => [r.id, r.result.discount_amount])).toEqual([
      [percent, 5000],
      [amount, 1000],
      [uncategorized, 100],
    ]);
    // The lower category may apply twice; the top one, under the per-category default, once.
    const secondLower = await voucher(project, off(10), lower);
    const secondTop = await voucher(project, off(20), top);
    const limits = await validate(project, { redeemables: asVouchers(amount, secondLower, percent, secondTop), order: { amount: 10000 } });
    expect(limits.redeemables.map((r) => [r.id, r.status])).toEqual([
      [percent, 'APPLICABLE'],
      [secondTop, 'SKIPPED'],
      [amount, 'APPLICABLE'],
      [secondLower, 'APPLICABLE'],
    ]);
  });

  test('when the rules are PARTIAL, then inapplicable redeemables are left out and the others apply and are redeemed', async () => {
    const project = await newProject();
    const good = await voucher(project, off(700));
    const strict = await validate(project, { redeemables: asVouchers(good, 'NO-SUCH-CODE'), order: { amount: 5000 } });
    expect(strict.valid).toBe(false);
    expect(strict.redeemables[0]).toMatchObject({ id: good, status: 'SKIPPED', result: { details: { key: 'preceding_validation_failed' } } });

    await setRules(project, { redeemables_application_mode: 'PARTIAL' });
    const partial = await validate(project, { redeemables: asVouchers(good, 'NO-SUCH-CODE'), order: { amount: 5000 } });
    expect(partial.valid).toBe(true);
    expect(partial.redeemables).toEqual([expect.objectContaining({ id: good, status: 'APPLICABLE' })]);
    expect(partial.inapplicable_redeemables).toEqual([expect.objectContaining({ id: 'NO-SUCH-CODE', status: 'INAPPLICABLE', result: { error: expect.objectContaining({ key: 'resource_not_found' }) } })]);
    expect(partial.order).toMatchObject({ discount_amount: 700, total_amount: 4300 });
    const none = await validate(project, { redeemables: asVouchers('NO-SUCH-CODE'), order: { amount: 5000 } });
    expect(none.valid).toBe(false);

    const redeemed = await project.client.POST('/v1/redemptions', { body: { redeemables: asVouchers(good, 'NO-SUCH-CODE'), order: { amount: 5000 } } });
    expect(redeemed.response.status).toBe(200);
    expect(redeemed.data!.redemptions!.map((r) => r.voucher?.code)).toEqual([good]);
    expect(redeemed.data!.inapplicable_redeemables!.map((r) => r.id)).toEqual(['NO-SUCH-CODE']);
    expect(redeemed.data!.order).toMatchObject({ discount_amount: 700 });
  });

  test('when a discount takes nothing off, then SKIP leaves it out, unless its category is to be redeemed anyway', async () => {
    const project = await newProject();
    const anyway = await category(project);
    // A fixed price above the order's amount takes nothing off it.
    const nothing = await voucher(project, { type: 'FIXED', fixed_amount: 20000 });
    const nothingAnyway = await voucher(project, { type: 'FIXED', fixed_amount: 20000 }, anyway);
    const something = await voucher(project, off(100));
    const byDefault = await validate(project, { redeemables: asVouchers(nothing, something), order: { amount: 10000 } });
    expect(byDefault.redeemables.map((r) => [r.status, r.result.discount_amount])).toEqual([
      ['APPLICABLE', 0],
      ['APPLICABLE', 100],
    ]);
    await setRules(project, { redeemables_no_effect_rule: 'SKIP', no_effect_redeem_anyway_categories: [anyway] });
    const skipped = await validate(project, { redeemables: asVouchers(nothing, nothingAnyway, something), order: { amount: 10000 } });
    expect(skipped.redeemables.map((r) => [r.id, r.status, r.status === 'SKIPPED' ? r.result.details?.key : r.result.discount_amount])).toEqual([
      [nothing, 'SKIPPED', 'no_effect'],
      [nothingAnyway, 'APPLICABLE', 0],
      [something, 'APPLICABLE', 100],
    ]);
  });

  test('when discounts are computed on the initial amount, or lines are discounted once, then later discounts follow the rule', async () => {
    const project = await newProject();
    const amount = await voucher(project, off(2000));
    const percent = await voucher(project, { type: 'PERCENT', percent_off: 10 });
    const onItems = await voucher(project, { type: 'PERCENT', percent_off: 10, effect: 'APPLY_TO_ITEMS' });
    const onItemsAgain = await voucher(project, { type: 'PERCENT', percent_off: 20, effect: 'APPLY_TO_ITEMS' });
    const order = { items: [{ quantity: 1, price: 6000 }, { quantity: 1, price: 4000 }] };
    const discounted = await validate(project, { redeemables: asVouchers(amount, percent), order: { amount: 10000 } });
    expect(discounted.redeemables.map((r) => r.result.discount_amount)).toEqual([2000, 800]);
    // On discounted amounts, the second percentage is of what the first left of each line: 20% of 5400 and of 3600.
    const stacked = await validate(project, { redeemables: asVouchers(onItems, onItemsAgain), order });
    expect(stacked.redeemables.map((r) => r.result.discount_amount)).toEqual([1000, 1800]);

    await setRules(project, { discount_calculation_mode: 'INITIAL_AMOUNT', redeemables_products_application_mode: 'ONCE' });
    const initial = await validate(project, { redeemables: asVouchers(amount, percent), order: { amount: 10000 } });
    expect(initial.redeemables.map((r) => r.result.discount_amount)).toEqual([2000, 1000]);
    const once = await validate(project, { redeemables: asVouchers(onItems, onItemsAgain), order });
    expect(once.redeemables.map((r) => r.result.discount_amount)).toEqual([1000, 0]);
  });

  test('when the rules roll back with the order, then a rollback cancels the redemption\'s order', async () => {
    const project = await newProject();
    const rules = await setRules(project, { redeemables_rollback_order_mode: 'WITH_ORDER' });
    const code = await voucher(project, off(500));
    const sourceId = unique('order');
    const redeemed = await project.client.POST('/v1/redemptions', { body: { redeemables: asVouchers(code), order: { source_id: sourceId, amount: 5000, status: 'PAID' } } });
    expect(redeemed.response.status).toBe(200);
    const parentId = redeemed.data!.parent_redemption!.id!;
    const rolledBack = await project.client.POST('/v1/redemptions/{redemptionId}/rollback', { params: { path: { redemptionId: parentId } }, body: {} });
    expect(rolledBack.response.status).toBe(200);
    const order = await project.client.GET('/v1/orders/{orderId}', { params: { path: { orderId: redeemed.data!.order!.id! } } });
    expect(order.data!.status).toBe('CANCELED');
    const parent = await project.client.GET('/v1/redemptions/{redemptionId}', { params: { path: { redemptionId: parentId } } });
    expect(parent.data).toMatchObject({ related_redemptions: { rollbacks: [expect.objectContaining({ rollback_order_mode: 'WITH_ORDER' })] } });

    // Back to the default: the order stays as it is.
    await mgmt().PUT('/management/v1/projects/{projectId}/stacking-rules/{stackingRulesId}', {
      params: { path: { projectId: project.id, stackingRulesId: rules.id! } },
      body: { redeemables_rollback_order_mode: 'WITHOUT_ORDER' },
    });
    const again = await project.client.POST('/v1/redemptions', { body: { redeemables: asVouchers(code), order: { source_id: unique('order'), amount: 5000, status: 'PAID' } } });
    await project.client.POST('/v1/redemptions/{redemptionId}/rollback', { params: { path: { redemptionId: again.data!.parent_redemption!.id! } }, body: {} });
    const kept = await project.client.GET('/v1/orders/{orderId}', { params: { path: { orderId: again.data!.order!.id! } } });
    expect(kept.data!.status).toBe('PAID');
  });
});
