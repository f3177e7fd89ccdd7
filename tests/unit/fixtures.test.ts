import { afterAll, describe, expect, test } from '@jest/globals';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemClock } from '../../server/domain/clock.js';
import { checkFixtures, fixturesPath, loadFixtureFile } from '../../server/fixtures.js';
import { BUNDLED_CONTRACT } from '../../server/paths.js';
import { MemoryStore } from '../../server/store/memory.js';
import { SCHEMA } from '../../server/domain/schema.js';

const contract = JSON.parse(readFileSync(BUNDLED_CONTRACT, 'utf8')) as object;
const circle = { type: 'circle', format: 'distance', distance: { center: 'geo:52.2,21.0', radius: '2km' } };

// Every file this suite writes, removed when it ends.
const scratch = mkdtempSync(join(tmpdir(), 'fixtures-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

async function storeWith(content: string) {
  const dir = mkdtempSync(join(scratch, 'file-'));
  const file = join(dir, 'fixtures.json');
  writeFileSync(file, content);
  const store = new MemoryStore(SCHEMA);
  await store.createProject('proj_a');
  return { store, file };
}

describe('fixture files', () => {
  test('a good file loads every section through the domain', async () => {
    const { store, file } = await storeWith(
      JSON.stringify({
        locations: [{ name: 'Centre', shape: circle }],
        products: [{ id: 'prod_x', name: 'X', price: 100 }],
        skus: [{ product_id: 'prod_x', sku: 'X small', price: 90 }],
        customers: [{ source_id: 'c-1', email: 'c1@example.com' }],
        campaigns: [{ name: 'Launch', campaign_type: 'DISCOUNT_COUPONS', vouchers_count: 3, voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } } }],
        vouchers: [{ code: 'HELLO', type: 'GIFT_VOUCHER', gift: { amount: 5000 } }],
      }),
    );
    expect(await loadFixtureFile(store, systemClock, 'proj_a', file, BUNDLED_CONTRACT)).toBe(6);
    const counts = await store.transaction('proj_a', async (uow) => ({
      locations: (await uow.locations.query({})).total,
      skus: await uow.skus.countBy('product_id', 'prod_x'),
      customers: (await uow.customers.query({})).total,
      vouchers: (await uow.vouchers.query({})).total,
    }));
    expect(counts).toEqual({ locations: 1, skus: 1, customers: 1, vouchers: 4 });
  });

  test('a bad entry is named, and nothing of the file is loaded', async () => {
    expect(() => checkFixtures({ locations: [{ name: 'ok', shape: circle }, { name: 'bad', shape: { type: 'circle' } }] }, contract, 'f.json')).toThrow(/^f\.json: locations\[1\]\/shape/);
    expect(() => checkFixtures({ customers: [{ email: 'not-an-email' }] }, contract, 'f.json')).toThrow(/^f\.json: customers\[0\]\/email must match format "email"/);
    expect(() => checkFixtures({ planets: [] }, contract, 'f.json')).toThrow(/unknown section "planets"/);
    expect(() => checkFixtures([1, 2], contract, 'f.json')).toThrow(/JSON object of sections/);
    const { store, file } = await storeWith(JSON.stringify({ products: [{ id: 'prod_a', name: 'A' }], skus: [{ product_id: 'prod_missing', sku: 'S' }] }));
    await expect(loadFixtureFile(store, systemClock, 'proj_a', file, BUNDLED_CONTRACT)).rejects.toThrow(/skus\[0\]: Cannot find product with id prod_missing/);
    expect(await store.transaction('proj_a', async (uow) => (await uow.products.query({})).total)).toBe(0);
    const open = { type: 'polygon', format: 'geojson', geojson: { type: 'Polygon', coordinates: [[[21, 52], [21.1, 52], [21.1, 52.1], [21, 52.1]]] } };
    const unclosed = await storeWith(JSON.stringify({ locations: [{ name: 'ok', shape: circle }, { name: 'open', shape: open }] }));
    await expect(loadFixtureFile(unclosed.store, systemClock, 'proj_a', unclosed.file, BUNDLED_CONTRACT)).rejects.toThrow(/locations\[1\]: shape\.geojson\.coordinates\[0\] is not closed/);
    expect(await unclosed.store.transaction('proj_a', async (uow) => (await uow.locations.query({})).total)).toBe(0);
    const backwards = await storeWith(JSON.stringify({ locations: [{ name: 'late', shape: circle, created_at: '2026-02-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z' }] }));
    await expect(loadFixtureFile(backwards.store, systemClock, 'proj_a', backwards.file, BUNDLED_CONTRACT)).rejects.toThrow(/locations\[0\]: updated_at .* is before created_at/);
    const broken = await storeWith('{ "locations": [');
    await expect(loadFixtureFile(broken.store, systemClock, 'proj_a', broken.file, BUNDLED_CONTRACT)).rejects.toThrow(/not valid JSON/);
  });

  test('the file is named by --fixtures or FIXTURES', () => {
    expect(fixturesPath(['--fixtures', 'a.json'], {})).toBe('a.json');
    expect(fixturesPath(['--fixtures=b.json'], { FIXTURES: 'c.json' })).toBe('b.json');
    expect(fixturesPath([], { FIXTURES: 'c.json' })).toBe('c.json');
    expect(fixturesPath([], {})).toBeUndefined();
    expect(() => fixturesPath(['--fixtures'], {})).toThrow(/needs a file path/);
  });
});
