/**
 * The published JavaScript SDK (`@voucherify/sdk`), unmodified, against the target: the interface's real
 * clients must work as they are. Each scenario goes through the SDK only and checks what it gets back, so a
 * request shape the SDK sends and the contract refuses (a code repeated in the body, a rollback reason in
 * the query, the short assignment form, tiers inside a new promotion campaign) fails here.
 */
import { describe, expect, test } from '@jest/globals';
import sdk from '@voucherify/sdk';
import { because, skip, unique, useTarget } from './target.js';

const { VoucherifyServerSide, VoucherifyClientSide } = sdk;

const ctx = useTarget();

function serverSide() {
  const { appId, appToken } = ctx.target.credentials;
  return VoucherifyServerSide({ applicationId: appId, secretKey: appToken, apiUrl: ctx.target.baseUrl });
}

/** What a refused SDK call throws, as plain fields. */
async function refusal(call: Promise<unknown>) {
  try {
    await call;
  } catch (error) {
    const { code, key, message, details, request_id } = error as { code: number; key: string; message: string; details?: string; request_id?: string };
    return { code, key, message, details, request_id };
  }
  throw new Error('the call succeeded');
}

describe('the published JavaScript SDK', () => {
  test('when a voucher is created, updated, validated, redeemed and rolled back through the SDK, then each step is kept', async () => {
    const client = serverSide();
    const code = unique('SDK');
    // The SDK sends the code in the path and again in the body.
    const created = await client.vouchers.create({ code, type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 1500 }, redemption: { quantity: 2 } } as never);
    expect(created).toMatchObject({ code, type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 1500 }, object: 'voucher' });
    await client.vouchers.update({ code, metadata: { shelf: 'A' } } as never);
    expect(await client.vouchers.get(code)).toMatchObject({ code, metadata: { shelf: 'A' }, redemption: { quantity: 2, redeemed_quantity: 0 } });

    const sourceId = unique('sdk-customer');
    expect(await client.customers.create({ source_id: sourceId, name: 'Ada' })).toMatchObject({ source_id: sourceId, object: 'customer' });
    const validation = await client.validations.validateStackable({ redeemables: [{ object: 'voucher', id: code }], order: { amount: 10000 }, customer: { source_id: sourceId } } as never);
    expect(validation).toMatchObject({ valid: true, order: { amount: 10000, discount_amount: 1500, total_amount: 8500 } });

    const redeemed = await client.redemptions.redeemStackable({ redeemables: [{ object: 'voucher', id: code }], order: { amount: 10000 }, customer: { source_id: sourceId } } as never);
    const redemptionId = redeemed.redemptions[0]!.id;
    // The address a voucher's `redemption.url` names.
    const entries = await client.redemptions.getForVoucher(code);
    expect(entries).toMatchObject({ redeemed_quantity: 1, quantity: 2, data_ref: 'redemption_entries', total: 1 });
    expect((entries as unknown as { redemption_entries: Array<{ id: string }> }).redemption_entries.map((entry) => entry.id)).toEqual([redemptionId]);

    // The SDK sends the reason in the query.
    const rollback = await client.redemptions.rollback(redemptionId, { reason: 'Order cancelled' });
    expect(rollback).toMatchObject({ reason: 'Order cancelled', result: 'SUCCESS', object: 'redemption_rollback' });
    expect(await client.vouchers.get(code)).toMatchObject({ redemption: { redeemed_quantity: 0 } });
    expect(await refusal(client.redemptions.rollback(redemptionId))).toMatchObject({ code: 400, key: 'already_rolled_back' });
  });

  test('when the SDK asks for what does not exist, then it gets the error fields it reads', async () => {
    const missing = await refusal(serverSide().vouchers.get(unique('NO-SUCH')));
    expect(missing).toMatchObject({ code: 404, key: 'not_found', message: expect.any(String), details: expect.any(String), request_id: expect.any(String) });
  });

  test('when a promotion campaign is created with its tiers through the SDK, then the tiers exist and the campaign lists them', async () => {
    const client = serverSide();
    const campaign = await client.promotions.create({
      name: unique('SDK promotion'),
      campaign_type: 'PROMOTION',
      promotion: {
        tiers: [
          { name: 'Over 100', banner: 'Save 10', action: { discount: { type: 'AMOUNT', amount_off: 1000 } } },
          { name: 'Over 50', banner: 'Save 5', action: { discount: { type: 'AMOUNT', amount_off: 500 } } },
        ],
      },
    } as never);
    const listed = (campaign as unknown as { promotion: { tiers: Array<{ name: string; campaign: { id: string } }>; total: number } }).promotion;
    expect(listed.total).toBe(2);
    expect(listed.tiers.map((tier) => tier.name)).toEqual(['Over 100', 'Over 50']);
    const tiers = await client.promotions.tiers.list(campaign.id);
    expect(tiers.tiers.map((tier) => tier.name)).toEqual(['Over 100', 'Over 50']);
    expect(tiers.tiers.every((tier) => tier.campaign.id === campaign.id)).toBe(true);
  });

  test('when a rule is assigned in the short form the SDK sends, then it holds for the voucher', async () => {
    const client = serverSide();
    const code = unique('SDK');
    await client.vouchers.create({ code, type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 500 } } as never);
    const rule = await client.validationRules.create({ name: unique('Min 50'), rules: { '1': { name: 'order.amount', conditions: { $more_than_or_equal: [5000] } } } } as never);
    const assignment = await client.validationRules.createAssignment(rule.id, { voucher: code });
    expect(assignment).toMatchObject({ rule_id: rule.id, related_object_type: 'voucher', object: 'validation_rules_assignment' });
    expect((await client.validationRules.listAssignments(rule.id)).total).toBe(1);
    const small = await client.validations.validateStackable({ redeemables: [{ object: 'voucher', id: code }], order: { amount: 4000 } } as never);
    expect(small).toMatchObject({ valid: false, inapplicable_redeemables: [{ id: code, status: 'INAPPLICABLE', result: { error: { key: 'order_rules_violated' } } }] });
  });

  test('when a loyalty member gains points through the SDK, then the card, its transactions and the customer agree', async () => {
    const client = serverSide();
    const program = await client.loyalties.create({ name: unique('SDK loyalty'), voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } } });
    const sourceId = unique('sdk-member');
    const member = await client.loyalties.createMember(program.id, { customer: { source_id: sourceId, name: 'Grace' } });
    expect(member).toMatchObject({ type: 'LOYALTY_CARD', campaign_id: program.id, loyalty_card: { points: 0, balance: 0 } });
    const balance = await client.loyalties.addOrRemoveCardBalance(member.code, { points: 120 });
    expect(balance).toMatchObject({ points: 120, total: 120, type: 'loyalty_card' });
    expect(await client.loyalties.getMember(program.id, member.code)).toMatchObject({ code: member.code, loyalty_card: { points: 120, balance: 120 } });
    const transactions = await client.loyalties.listCardTransactions(member.code, null, {});
    expect(transactions.data.map((entry) => entry.details?.balance?.points)).toContain(120);
    expect(await refusal(client.loyalties.addOrRemoveCardBalance(member.code, { points: -500 }))).toMatchObject({ code: 400 });
    expect(await client.loyalties.getMember(program.id, member.code)).toMatchObject({ loyalty_card: { balance: 120 } });
  });

  test('when the client-side SDK validates from an allowed origin, then it gets the discount; from another origin it is refused', async () => {
    const key = ctx.target.client;
    if (!key) return skip(because('client'));
    const code = unique('SDK');
    await serverSide().vouchers.create({ code, type: 'DISCOUNT_VOUCHER', discount: { type: 'PERCENT', percent_off: 20 } } as never);
    const options = { clientApplicationId: key.appId, clientSecretKey: key.token, apiUrl: ctx.target.baseUrl };
    const allowed = VoucherifyClientSide({ ...options, origin: key.origin });
    const result = await allowed.validateStackable({ redeemables: [{ object: 'voucher', id: code }], order: { amount: 5000 } } as never);
    expect(result).toMatchObject({ valid: true, order: { discount_amount: 1000, total_amount: 4000 } });
    const stranger = VoucherifyClientSide({ ...options, origin: 'https://elsewhere.example.test' });
    expect(await refusal(stranger.validateStackable({ redeemables: [{ object: 'voucher', id: code }], order: { amount: 5000 } } as never))).toMatchObject({ code: 403, key: 'origin_not_allowed' });
  });
});
