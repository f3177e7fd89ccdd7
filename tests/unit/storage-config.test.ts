/** The store a server opens from its environment: the memory store, freezing its rows only when asked. */
import { describe, expect, test } from '@jest/globals';
import { configFromEnv } from '../../server/config.js';
import { openStore } from '../../server/storage.js';

async function storedProduct(env: NodeJS.ProcessEnv) {
  const store = await openStore(configFromEnv(env).storage);
  await store.createProject('p');
  return store.transaction('p', (uow) =>
    uow.products.insert({ id: 'prod_a', source_id: null, name: null, price: null, attributes: [], metadata: {}, image_url: null, created_at: '2026-01-01T00:00:00.000Z', updated_at: null, object: 'product' }),
  );
}

describe('the store from the environment', () => {
  test('when nothing is set, then the memory store keeps the rows written as they are, not frozen', async () => {
    expect(configFromEnv({}).storage).toEqual({ kind: 'memory', freezeRows: false });
    expect(Object.isFrozen(await storedProduct({}))).toBe(false);
  });

  test('when FREEZE_ROWS is set, then every row the memory store keeps is frozen with its parts', async () => {
    const row = await storedProduct({ FREEZE_ROWS: '1' });
    expect(Object.isFrozen(row) && Object.isFrozen(row.metadata) && Object.isFrozen(row.attributes)).toBe(true);
    expect(configFromEnv({ FREEZE_ROWS: 'true' }).storage).toEqual({ kind: 'memory', freezeRows: true });
  });
});
