/**
 * The delivery worker's claim (server/webhooks/delivery.ts) on the SQL store reads the index migration 0003
 * made for it, so that every instance polling every second reads the PENDING deliveries only, not the table.
 */
import { expect, test } from '@jest/globals';
import { SCHEMA } from '../../server/domain/schema.js';
import { openPgliteStore } from '../../server/store/sql/sql-store.js';
import { and, compare, eq } from '../../server/store/conditions.js';

test('when the worker claims due deliveries among many that ended, then PostgreSQL reads the index of PENDING deliveries by due time', async () => {
  let captured: { sql: string; params: readonly unknown[] } | undefined;
  const store = await openPgliteStore(SCHEMA, undefined, { trace: (sql, params) => (captured = { sql, params }) });
  await store.createProject('p');
  await store.transaction('p', async (uow) => {
    for (let i = 0; i < 3000; i++) await uow.webhook_deliveries.insert({ id: `d${i}`, webhook_id: 'w', event_id: 'e', event_type: 'customer.created', status: i % 100 === 0 ? 'PENDING' : 'DELIVERED', attempts: [], failure_reason: null, next_attempt_at: null, created_at: '', updated_at: null, object: 'webhook_delivery', due_ms: i % 100 === 0 ? 0 : null } as never);
  });
  await store.driver.query('ANALYZE store_rows');
  const now = Date.now();
  // As the worker claims: with the status as an index hint and a room per project.
  const claimed = await store.claim('webhook_deliveries', {
    where: and(eq('status', 'PENDING'), compare('lte', 'due_ms', now)),
    index: { field: 'status', value: 'PENDING' },
    orderBy: { field: 'due_ms', direction: 'asc' },
    limit: 10,
    perProject: { default: 1000, of: { q: 5 } },
    owner: 'x',
    now,
    leaseMs: 1,
  });
  expect(claimed).toHaveLength(10);
  // The claim's own statement, its parameters written in, so that the plan is the one its values get.
  const plan = await store.driver.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${captured!.sql.replace(/\$(\d+)::(\w+(\[\])?)/g, (_m, n: string, type: string) => `'${String(captured!.params[Number(n) - 1]).replaceAll("'", "''")}'::${type}`)}`);
  console.log(plan.map((row) => row['QUERY PLAN']).join('\n'));
  expect(plan.some((row) => row['QUERY PLAN'].includes('store_claim_webhook_deliveries'))).toBe(true);
  await store.close();
}, 60_000);
