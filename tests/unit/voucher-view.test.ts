/**
 * A voucher as the API shows it (presentVoucher): every field the stored record keeps, except the publication
 * count, which it shows as `publish`, and gift and redemption, which it reshapes; then the names of its campaign
 * and category, its rule assignments oldest first and the links of its lists. The view is one literal that names
 * each field, so a field added to the record and forgotten there fails here.
 */
import { describe, expect, test } from '@jest/globals';
import { systemClock } from '../../server/domain/clock.js';
import { SCHEMA } from '../../server/domain/schema.js';
import { presentVoucher, type VoucherRecord } from '../../server/domain/vouchers.js';
import { MemoryStore } from '../../server/store/memory.js';

function record(fields: Partial<VoucherRecord>): VoucherRecord {
  return {
    id: 'v_1',
    code: 'SPRING 10%',
    campaign_id: null,
    category_id: null,
    type: 'DISCOUNT_VOUCHER',
    discount: { type: 'PERCENT', percent_off: 10 },
    gift: null,
    loyalty_card: null,
    start_date: '2026-03-01T00:00:00.000Z',
    expiration_date: null,
    validity_timeframe: { interval: 'P1D', duration: 'PT1H' },
    validity_day_of_week: [1, 2],
    validity_hours: null,
    active: true,
    additional_info: 'spring',
    metadata: { region: 'north' },
    is_referral_code: false,
    created_at: '2026-02-01T00:00:00.000Z',
    updated_at: null,
    holder_id: 'cust_1',
    redemption: { quantity: 5, redeemed_quantity: 2, redeemed_points: 0 },
    publish_count: 3,
    ...fields,
  };
}

/** Presents each record in a project that holds a campaign, a category and two rule assignments of `v_1`. */
async function present(...records: VoucherRecord[]) {
  const store = new MemoryStore(SCHEMA);
  await store.createProject('p');
  return store.transaction('p', async (uow) => {
    await uow.campaigns.insert({ id: 'camp_1', name: 'Spring' } as never);
    await uow.categories.insert({ id: 'cat_1', name: 'Seasonal', hierarchy: 1, created_at: '2026-01-01T00:00:00.000Z', object: 'category' } as never);
    for (const [id, created_at] of [['asgm_2', '2026-02-03T00:00:00.000Z'], ['asgm_1', '2026-02-02T00:00:00.000Z']]) {
      await uow.validation_rule_assignments.insert({ id, rule_id: 'val_1', related_object_id: 'v_1', related_object_type: 'voucher', created_at, object: 'validation_rules_assignment' } as never);
    }
    const views = [];
    for (const stored of records) views.push(await presentVoucher({ uow, clock: systemClock }, await uow.vouchers.insert(stored)));
    return views;
  });
}

const RESHAPED = new Set(['publish_count', 'gift', 'redemption']);

describe('a voucher as the API shows it', () => {
  test('when a discount voucher of a campaign and category is presented, then it has every field of its record and the derived ones', async () => {
    const stored = record({ campaign_id: 'camp_1', category_id: 'cat_1' });
    const [view] = await present(stored);
    for (const key of Object.keys(stored).filter((field) => !RESHAPED.has(field))) expect([key, view![key as keyof typeof view]]).toEqual([key, stored[key as keyof VoucherRecord]]);
    expect(Object.keys(view!).sort()).toEqual(
      [...Object.keys(stored).filter((field) => field !== 'publish_count'), 'campaign', 'category', 'categories', 'publish', 'validation_rules_assignments', 'object'].sort(),
    );
    expect(view).toMatchObject({
      campaign: 'Spring',
      category: 'Seasonal',
      categories: [{ id: 'cat_1', name: 'Seasonal' }],
      gift: null,
      redemption: { quantity: 5, redeemed_quantity: 2, object: 'list', url: '/v1/vouchers/SPRING%2010%25/redemption' },
      publish: { object: 'list', count: 3, url: '/v1/publications?voucher=SPRING%2010%25' },
      object: 'voucher',
    });
    // Points redeemed belong to loyalty cards only.
    expect(view!.redemption).not.toHaveProperty('redeemed_points');
    expect(view!.validation_rules_assignments).toMatchObject({ object: 'list', data_ref: 'data', total: 2, data: [{ id: 'asgm_1' }, { id: 'asgm_2' }] });
  });

  test('when a gift card and a loyalty card are presented, then the gift shows what was taken off and the card its redeemed points', async () => {
    const [gift, card] = await present(
      record({ id: 'v_2', code: 'GIFT', type: 'GIFT_VOUCHER', discount: null, gift: { amount: 5000, balance: 3000, effect: 'APPLY_TO_ORDER' } }),
      record({
        id: 'v_3',
        code: 'CARD',
        type: 'LOYALTY_CARD',
        discount: null,
        loyalty_card: { points: 120, balance: 80, next_expiration_date: null, next_expiration_points: null },
        redemption: { quantity: null, redeemed_quantity: 4, redeemed_points: 40 },
      }),
    );
    expect(gift!.gift).toEqual({ amount: 5000, subtracted_amount: 0, balance: 3000, effect: 'APPLY_TO_ORDER' });
    expect(card!.redemption).toEqual({ quantity: null, redeemed_quantity: 4, redeemed_points: 40, object: 'list', url: '/v1/vouchers/CARD/redemption' });
    expect(card!.loyalty_card).toEqual({ points: 120, balance: 80, next_expiration_date: null, next_expiration_points: null });
    expect([gift!.validation_rules_assignments?.total, card!.validation_rules_assignments?.total]).toEqual([0, 0]);
  });

  test('when its category no longer exists, then the voucher shows no category', async () => {
    const [view] = await present(record({ category_id: 'cat_gone' }));
    expect(view).toMatchObject({ category_id: null, category: null, categories: [], campaign: null });
  });
});
