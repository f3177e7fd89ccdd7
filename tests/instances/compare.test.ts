/**
 * The kit's `compare` between two implementations that must agree: the reference server on the memory store and
 * on PostgreSQL, each a process of its own with the contract fixtures, over areas that between them create,
 * list, update and validate. Both runs of the whole suite over HTTP cost many minutes on the 2-core CI machine,
 * so `make test` compares these areas (about a minute); the README's recipe ("Compare two implementations")
 * without `--only` compares the whole scenario set. Needs `make build` and TEST_DATABASE_URL.
 */
import { afterAll, beforeAll, describe, expect, jest, test } from '@jest/globals';
import { CONTRACT_FIXTURES } from '../contract/target.js';
import { compareKit } from '../kit/kit-run.js';
import { deployment, KEYS, NO_DATABASE, type Deployment, type Instance } from './harness.js';

jest.setTimeout(900_000);

const run = NO_DATABASE ? describe.skip : describe;
if (NO_DATABASE) console.log(NO_DATABASE);

/**
 * The areas compared: vouchers made, listed and updated, validations, customers (with their activity) and
 * products.
 */
const AREAS = 'vouchers,validations,customers,products';

run('compare: the memory store against PostgreSQL', () => {
  let servers: Deployment;
  let memory: Instance;
  let postgres: Instance;

  beforeAll(async () => {
    servers = await deployment();
    // The suite sends wrong keys on purpose, far more than a minute's allowance from one address.
    const env = { AUTH_FAILURES_PER_MINUTE: '0' };
    // Without DATABASE_URL the server keeps its data in memory.
    memory = await servers.start({ ...env, DATABASE_URL: '' }, ['--fixtures', CONTRACT_FIXTURES]);
    postgres = await servers.start(env, ['--fixtures', CONTRACT_FIXTURES]);
  });

  afterAll(async () => {
    await servers?.close();
  });

  test('when the same scenarios run against both, then compare finds no difference in any status or body', async () => {
    const credentials = { appId: KEYS.appId, appToken: KEYS.appToken };
    const compared = await compareKit({ baseUrl: memory.baseUrl, credentials }, { baseUrl: postgres.baseUrl, credentials }, ['--only', AREAS]);
    console.log(`compare, memory against PostgreSQL (${AREAS}): ${compared.output.split('\n').filter(Boolean).at(-2)}`);
    expect({ code: compared.code, differences: compared.report.differences }).toEqual({ code: 0, differences: [] });
    expect(compared.report.scenarios.compared).toBeGreaterThan(100);
    expect(compared.report.exchanges.compared).toBeGreaterThan(500);
  });
});
