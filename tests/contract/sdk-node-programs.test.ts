/**
 * The Node.js SDK `voucherify` 5.2.0, unmodified: its methods that reach the operations of the bin, campaign
 * templates, referral holders, permanent customer deletion and the deprecated loyalty operations (the
 * per-program reward assignments), each called with every field the call can carry.
 */
import { describe, expect, test } from '@jest/globals';
import { PROGRAM_OPERATIONS } from './program-operations.js';
import { expectAllCalled, refusal, useNodeSdk, type Body } from './sdk-node.js';
import { nodeSdkMethods } from './sdk-methods.js';
import { unique, useTarget } from './target.js';
import { readFileSync } from 'node:fs';
import { BUNDLED_CONTRACT } from '../../server/paths.js';

const ctx = useTarget();
const node = useNodeSdk(ctx);

describe('the Node.js SDK: reward assignments through a loyalty program', () => {
  test('when rewards are assigned, listed, updated and deleted through the program, then the rewards API sees the same assignments', async () => {
    const { sdk } = node;
    const club = await sdk.loyalties.create({ name: unique('SDK node legacy club'), voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } } });
    const product = await sdk.products.create({ name: unique('SDK node legacy product') });
    const reward = await sdk.rewards.create({ name: unique('SDK node mug'), type: 'MATERIAL', stock: 3, parameters: { product: { id: product.id! } } });
    const coins = await sdk.rewards.create({ name: unique('SDK node coins'), type: 'COIN', parameters: { coin: { exchange_ratio: 100, points_ratio: 1 } } });
    // The SDK passes the list through as the body: every field an item can carry, for a material and a COIN reward.
    const assignments = [
      { reward: reward.id, parameters: { loyalty: { points: 75, auto_redeem: false } } },
      { reward: coins.id, validation_rules: [] },
    ] satisfies Body<'create-reward-assignment-1'>;
    const created = await sdk.loyalties.createRewardAssignments(club.id!, assignments);
    expect(created).toMatchObject({ reward_id: reward.id, related_object_id: club.id, parameters: { loyalty: { points: 75, auto_redeem: false } }, object: 'reward_assignment' });

    const listed = await sdk.loyalties.listRewardAssignments(club.id!, { limit: 10, page: 1, assignment_id: created.id });
    expect(listed).toMatchObject({ object: 'list', data_ref: 'data', data: [{ id: created.id }], total: 1 });
    const both = await sdk.loyalties.listRewardAssignments(club.id!);
    expect(both.data?.map((assignment) => assignment.reward_id).sort()).toEqual([reward.id, coins.id].sort());

    const updated = await sdk.loyalties.updateRewardAssignment(club.id!, { id: created.id, parameters: { loyalty: { points: 60, auto_redeem: null } } });
    expect(updated).toMatchObject({ id: created.id, parameters: { loyalty: { points: 60 } }, updated_at: expect.any(String) });
    expect((await sdk.rewards.listAssignments(reward.id)).data).toMatchObject([{ id: created.id, parameters: { loyalty: { points: 60, auto_redeem: null } } }]);

    await sdk.loyalties.deleteRewardAssignment(club.id!, created.id);
    expect((await sdk.rewards.listAssignments(reward.id)).data).toEqual([]);
    expect((await sdk.loyalties.listRewardAssignments(club.id!)).total).toBe(1);
    expect(await refusal(sdk.loyalties.deleteRewardAssignment(club.id!, created.id))).toMatchObject({ code: 404, key: 'not_found' });
  });

  test('every method that reaches the operations of this file\'s families was called', () => {
    const contract = JSON.parse(readFileSync(BUNDLED_CONTRACT, 'utf8'));
    const expected = nodeSdkMethods(contract)
      .filter((method) => method.operationId && PROGRAM_OPERATIONS.has(method.operationId))
      .map((method) => method.name);
    expect(expected.length).toBeGreaterThan(0);
    expectAllCalled(node.calls, [...new Set(expected)]);
  });
});
