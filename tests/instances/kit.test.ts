/**
 * The contract kit, as a team runs it against its own deployment: two reference server processes on one
 * PostgreSQL database behind a round-robin load balancer, each request going to the other instance from the
 * one before. Needs `make build` and TEST_DATABASE_URL (make test gives both).
 */
import { afterAll, beforeAll, describe, expect, jest, test } from '@jest/globals';
import { CONTRACT_FIXTURES } from '../contract/target.js';
import { runKit } from '../kit/kit-run.js';
import { deployment, KEYS, NO_DATABASE, roundRobin, type Balancer, type Deployment } from './harness.js';

jest.setTimeout(1_800_000);

const run = NO_DATABASE ? describe.skip : describe;
if (NO_DATABASE) console.log(NO_DATABASE);

run('contract kit against two instances behind a load balancer', () => {
  let servers: Deployment;
  let balancer: Balancer;

  beforeAll(async () => {
    servers = await deployment();
    // The suite's fixtures go into the first project once; the second instance finds them in the database.
    // The suite sends wrong keys on purpose, far more than a minute's allowance from one address.
    // Absolute URLs in answers (export downloads) name the balancer, as a deployment's PUBLIC_BASE_URL does.
    balancer = await roundRobin();
    // Test clocks on, so their scenarios run too: a project's frozen time is in the database, read by both instances.
    const env = { AUTH_FAILURES_PER_MINUTE: '0', PROJECT_ID: 'proj_kit_a', PUBLIC_BASE_URL: balancer.baseUrl, TEST_CLOCKS: '1' };
    const first = await servers.start(env, ['--fixtures', CONTRACT_FIXTURES]);
    const second = await servers.start(env);
    balancer.route([first.baseUrl, second.baseUrl]);
  });

  afterAll(async () => {
    await balancer?.close();
    await servers?.close();
  });

  test('when run through the balancer, then every scenario passes with requests split evenly between the instances', async () => {
    // The second project of the suite's cross-project checks, made as a team would: through the management API.
    const made = await fetch(`${balancer.baseUrl}/management/v1/projects`, {
      method: 'POST',
      headers: { 'X-Management-Id': KEYS.managementId, 'X-Management-Token': KEYS.managementToken, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'kit other' }),
    });
    expect(made.status).toBe(200);
    const other = ((await made.json()) as { server_side_key: { app_id: string; app_token: string } }).server_side_key;

    const keys = {
      credentials: { appId: KEYS.appId, appToken: KEYS.appToken },
      other: { appId: other.app_id, appToken: other.app_token },
      management: { id: KEYS.managementId, token: KEYS.managementToken },
      client: { appId: KEYS.clientAppId, token: KEYS.clientToken, origin: 'http://localhost:3000' },
    };
    // Fuzzing runs against the in-process server in the same `make test`; here it would only add time.
    const kit = await runKit(balancer.baseUrl, keys, ['--skip', 'fuzz']);
    const failed = [
      ...kit.report.operations.rows.filter((row) => row.result === 'failed').map((row) => `${row.operationId}: ${row.reason}`),
      ...kit.report.otherFailures.map((failure) => `${failure.test}: ${failure.reason}`),
    ];
    console.log(`kit through the balancer: ${kit.report.tests.passed} passed; requests per instance: ${balancer.served.join(' / ')}`);
    expect({ code: kit.code, failed }).toEqual({ code: 0, failed: [] });
    expect(kit.report.operations.rows.filter((row) => row.result === 'skipped').map((row) => row.operationId)).toEqual([]);
    const [one, two] = balancer.served;
    expect(Math.abs(one! - two!)).toBeLessThanOrEqual(1);
    expect(one).toBeGreaterThan(1000);
  });
});
