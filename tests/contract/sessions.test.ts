import { afterEach, describe, expect, test } from '@jest/globals';
import { expectError, failed } from './expect-error.js';
import { because, raw, skip, unique, useTarget } from './target.js';

const ctx = useTarget();

afterEach(() => ctx.target.clock?.reset());

async function voucher(body: Record<string, unknown>) {
  const code = unique('SSN');
  const created = await ctx.client.POST('/v1/vouchers/{code}', { params: { path: { code } }, body: body as never });
  expect(created.response.status).toBe(200);
  return code;
}

const discount = (quantity: number | null) => voucher({ type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 500 }, redemption: { quantity } });

async function validate(body: Record<string, unknown>) {
  const result = await ctx.client.POST('/v1/validations', { body: body as never });
  expect(result.response.status).toBe(200);
  return result.data!;
}

function release(code: string, key: string) {
  return raw(ctx.target, 'DELETE', `/v1/vouchers/${encodeURIComponent(code)}/sessions/${encodeURIComponent(key)}`);
}

const errorKeyOf = (result: Awaited<ReturnType<typeof validate>>) => result.inapplicable_redeemables?.[0]?.result.error?.key;

describe('validation sessions', () => {
  test('when a session holds the last redemption of a voucher, then other requests find it used up, and the session itself does not', async () => {
    const code = await discount(1);
    const held = await validate({ redeemables: [{ object: 'voucher', id: code }], order: { amount: 2000 }, session: { type: 'LOCK' } });
    expect(held).toMatchObject({ valid: true, session: { key: expect.stringMatching(/^ssn_/), type: 'LOCK', ttl: 7, ttl_unit: 'DAYS' } });
    const key = held.session!.key!;

    const other = await validate({ redeemables: [{ object: 'voucher', id: code }], order: { amount: 2000 } });
    expect(other.valid).toBe(false);
    expect(errorKeyOf(other)).toBe('quantity_exceeded');
    expect(other.inapplicable_redeemables![0]!.result.error!.details).toContain('validation sessions hold 1 more');
    const otherSession = await validate({ redeemables: [{ object: 'voucher', id: code }], order: { amount: 2000 }, session: { key: 'ssn_other-till' } });
    expect(errorKeyOf(otherSession)).toBe('quantity_exceeded');
    // The session's own validation, renewed, still passes: it holds the redemption for itself.
    expect((await validate({ redeemables: [{ object: 'voucher', id: code }], order: { amount: 2000 }, session: { key } })).valid).toBe(true);

    const refused = await ctx.client.POST('/v1/redemptions', { body: { redeemables: [{ object: 'voucher', id: code }], order: { amount: 2000 } } });
    expectError(failed(refused), 400, 'quantity_exceeded');

    const redeemed = await ctx.client.POST('/v1/redemptions', { body: { redeemables: [{ object: 'voucher', id: code }], order: { amount: 2000 }, session: { key } } });
    expect(redeemed.response.status).toBe(200);
    expect(redeemed.data!.redemptions![0]).toMatchObject({ session: { key }, result: 'SUCCESS' });
    // The redemption used the hold and ended it: there is nothing left to release.
    expectError(await release(code, key), 404, 'not_found');
    const after = await ctx.client.GET('/v1/vouchers/{code}', { params: { path: { code } } });
    expect(after.data!.redemption).toMatchObject({ quantity: 1, redeemed_quantity: 1 });
  });

  test('when sessions hold redemptions of a voucher, then each holds one, and releasing one frees it for others', async () => {
    const code = await discount(2);
    const first = await validate({ redeemables: [{ object: 'voucher', id: code }], order: { amount: 2000 }, session: { key: unique('ssn_a'), ttl: 30, ttl_unit: 'MINUTES' } });
    expect(first.session).toEqual({ key: expect.stringMatching(/^ssn_a-/), type: 'LOCK', ttl: 30, ttl_unit: 'MINUTES' });
    // One of two is held: an ordinary validation still finds one free.
    expect((await validate({ redeemables: [{ object: 'voucher', id: code }], order: { amount: 2000 } })).valid).toBe(true);
    const second = await validate({ redeemables: [{ object: 'voucher', id: code }], order: { amount: 2000 }, session: { key: unique('ssn_b') } });
    expect(second.valid).toBe(true);
    expect(errorKeyOf(await validate({ redeemables: [{ object: 'voucher', id: code }], order: { amount: 2000 } }))).toBe('quantity_exceeded');

    const released = await release(code, first.session!.key!);
    expect(released.status).toBe(204);
    expect((await validate({ redeemables: [{ object: 'voucher', id: code }], order: { amount: 2000 } })).valid).toBe(true);
    expectError(await release(code, first.session!.key!), 404, 'not_found');
    // An invalid validation holds nothing, so its session has nothing to release.
    const third = await validate({ redeemables: [{ object: 'voucher', id: code }, { object: 'voucher', id: 'NO-SUCH-CODE' }], order: { amount: 2000 }, session: { key: 'ssn_third' } });
    expect(third.valid).toBe(false);
    expectError(await release(code, 'ssn_third'), 404, 'not_found');
  });

  test('when a session holds gift credit, then others can use only the rest of the balance, and the verdict says what is held', async () => {
    const code = await voucher({ type: 'GIFT_VOUCHER', gift: { amount: 5000 } });
    const held = await validate({ redeemables: [{ object: 'voucher', id: code }], order: { amount: 3000 }, session: { type: 'LOCK' } });
    expect(held.redeemables[0]!.result.gift).toEqual({ credits: 3000, balance: 5000, locked_credits: 3000 });

    const tooMuch = await validate({ redeemables: [{ object: 'voucher', id: code, gift: { credits: 3000 } }], order: { amount: 4000 } });
    expect(errorKeyOf(tooMuch)).toBe('gift_amount_exceeded');
    expect(tooMuch.inapplicable_redeemables![0]!.result.error!.details).toContain('validation sessions hold 3000');
    const rest = await validate({ redeemables: [{ object: 'voucher', id: code }], order: { amount: 4000 } });
    expect(rest.redeemables[0]!.result.gift).toEqual({ credits: 2000, balance: 5000 });
    expect(rest.order).toMatchObject({ gift_amount: 2000, total_amount: 2000 });

    // Redeemed under the session, the card pays what the session held; the hold ends.
    const redeemed = await ctx.client.POST('/v1/redemptions', { body: { redeemables: [{ object: 'voucher', id: code }], order: { amount: 3000 }, session: { key: held.session!.key } } });
    expect(redeemed.data!.redemptions![0]).toMatchObject({ gift: { amount: 3000 } });
    expect((await ctx.client.GET('/v1/vouchers/{code}', { params: { path: { code } } })).data!.gift).toMatchObject({ balance: 2000 });
    expect((await validate({ redeemables: [{ object: 'voucher', id: code, gift: { credits: 2000 } }], order: { amount: 4000 } })).valid).toBe(true);
  });

  test('when a session holds a loyalty card\'s points, then others can pay only with the rest', async () => {
    const club = (await ctx.client.POST('/v1/loyalties', { body: { name: unique('Session club'), voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 } } } })).data!;
    const coin = (await ctx.client.POST('/v1/rewards', { body: { name: unique('Session coin'), type: 'COIN', parameters: { coin: { exchange_ratio: 100, points_ratio: 10 } } } })).data!;
    await ctx.client.POST('/v1/rewards/{rewardId}/assignments', { params: { path: { rewardId: coin.id } }, body: { campaign: club.id! } });
    const card = (await ctx.client.POST('/v1/loyalties/{campaignId}/members', { params: { path: { campaignId: club.id! } }, body: { customer: { source_id: unique('ssn-member') } } })).data!;
    await ctx.client.POST('/v1/loyalties/members/{memberId}/balance', { params: { path: { memberId: card.code! } }, body: { points: 100 } });

    // 60 points pay 600 of the order, and the session holds them.
    const held = await validate({ redeemables: [{ object: 'voucher', id: card.code!, reward: { id: coin.id } }], order: { amount: 600 }, session: { key: unique('ssn_points') } });
    expect(held.redeemables[0]!.result).toMatchObject({ discount_amount: 600, loyalty_card: { points: 60, balance: 100 } });
    const rest = await validate({ redeemables: [{ object: 'voucher', id: card.code!, reward: { id: coin.id } }], order: { amount: 5000 } });
    expect(rest.redeemables[0]!.result).toMatchObject({ discount_amount: 400, loyalty_card: { points: 40, balance: 100 } });
    const second = await validate({ redeemables: [{ object: 'voucher', id: card.code!, reward: { id: coin.id } }], order: { amount: 400 }, session: { key: unique('ssn_points') } });
    expect(second.valid).toBe(true);
    const none = await validate({ redeemables: [{ object: 'voucher', id: card.code!, reward: { id: coin.id } }], order: { amount: 5000 } });
    expect(errorKeyOf(none)).toBe('not_enough_points');
    expect(none.inapplicable_redeemables![0]!.result.error!.details).toContain('100 of them held by validation sessions');
  });

  test('when a session outlives its time, then what it held is free again and there is nothing to release', async () => {
    if (!ctx.target.clock) return skip(because('inProcess'), ['release-validation-session']);
    const code = await discount(1);
    const held = await validate({ redeemables: [{ object: 'voucher', id: code }], order: { amount: 2000 }, session: { key: unique('ssn_short'), ttl: 1, ttl_unit: 'MINUTES' } });
    expect(held.valid).toBe(true);
    expect(errorKeyOf(await validate({ redeemables: [{ object: 'voucher', id: code }], order: { amount: 2000 } }))).toBe('quantity_exceeded');
    ctx.target.clock.travelTo(new Date(Date.now() + 61_000));
    expect((await validate({ redeemables: [{ object: 'voucher', id: code }], order: { amount: 2000 } })).valid).toBe(true);
    expectError(await release(code, held.session!.key!), 404, 'not_found');
  });

  test('when a release names an unknown voucher or session, then it is a 404, and a voucher without a limit is held and released', async () => {
    const code = await discount(null);
    expectError(await release('NO-SUCH-CODE', 'ssn_any'), 404, 'not_found');
    expectError(await release(code, 'ssn_never-made'), 404, 'not_found');
    // A voucher without a limit is held too, and released.
    const held = await validate({ redeemables: [{ object: 'voucher', id: code }], order: { amount: 2000 }, session: { key: unique('ssn_unlimited') } });
    expect((await validate({ redeemables: [{ object: 'voucher', id: code }], order: { amount: 2000 } })).valid).toBe(true);
    expect((await release(code, held.session!.key!)).status).toBe(204);
  });
});
