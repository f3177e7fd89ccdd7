/**
 * A customer list without filters must read its page off creation order, not sort the project's whole table
 * for every page (which let one project's lists hold up every other project).
 */
import { describe, expect, test } from '@jest/globals';
import { systemClock } from '../../server/domain/clock.js';
import { listCustomers, upsertCustomer, type Customer } from '../../server/domain/customers.js';
import { MemoryStore } from '../../server/store/memory.js';
import { SCHEMA, type DomainUnitOfWork } from '../../server/domain/schema.js';
import { and } from '../../server/store/conditions.js';
import type { Query } from '../../server/store/store.js';

describe('listing customers', () => {
  test('when no filter is given, then the store is asked for a page in creation order with no condition, and it matches a full sort', async () => {
    const store = new MemoryStore(SCHEMA);
    await store.createProject('p');
    await store.transaction('p', async (uow) => {
      for (let i = 0; i < 300; i++) await upsertCustomer({ uow, clock: systemClock }, { source_id: `c${i}`, name: i % 2 ? 'Odd' : 'Even' });
    });
    await store.transaction('p', async (uow) => {
      const asked: Query<Customer>[] = [];
      const spying = new Proxy(uow, {
        get: (target, name) =>
          name === 'customers'
            ? { ...target.customers, query: (query: Query<Customer>) => (asked.push(query), target.customers.query(query)) }
            : target[name as keyof DomainUnitOfWork],
      });
      const page = await listCustomers({ uow: spying, clock: systemClock }, { limit: 10, page: 20 } as never);
      expect(asked[0]).toMatchObject({ orderBy: { field: 'created_at', direction: 'desc' }, offset: 190, limit: 10 });
      expect(asked[0]!.where).toBeUndefined();
      const sorted = await uow.customers.query({ where: and(), orderBy: { field: 'created_at', direction: 'desc' } });
      expect(page.rows.map((row) => row.id)).toEqual(sorted.rows.slice(190, 200).map((row) => row.id));
      expect(page).toMatchObject({ total: 300, has_more: true });

      const filtered = await listCustomers({ uow: spying, clock: systemClock }, { limit: 5, name: 'Odd' } as never);
      expect(asked[1]!.where).toBeDefined();
      expect(filtered.total).toBe(150);
      expect(filtered.rows.every((row) => row.name === 'Odd')).toBe(true);
    });
  });
});
