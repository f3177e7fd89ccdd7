import { describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { BUNDLED_CONTRACT } from '../../server/paths.js';
import { nodeSdkMethods, recording, voucherifySdkMethods } from '../contract/sdk-methods.js';

const contract = JSON.parse(readFileSync(BUNDLED_CONTRACT, 'utf8'));

describe('the SDK method inventory', () => {
  test('when @voucherify/sdk is read, then its methods are placed where integrators call them and matched to operations', () => {
    const methods = voucherifySdkMethods(contract);
    const find = (name: string) => methods.filter((method) => method.name === name).map((method) => `${method.http} ${method.path} ${method.operationId ?? '-'}`);
    expect(find('vouchers.create')).toEqual(['POST /v1/vouchers/{code} create-voucher']);
    expect(find('vouchers.balance.create')).toEqual(['POST /v1/vouchers/{code}/balance update-voucher-balance']);
    expect(find('distributions.publications.create')).toEqual(['POST /v1/publications create-publication']);
    expect(find('client.validateStackable')).toEqual(['POST /client/v1/validations validate-stacked-discounts-client-side']);
    // A method with two paths reaches two operations.
    expect(find('loyalties.getMember')).toHaveLength(2);
    expect(find('segments.create')).toEqual(['POST /v1/segments create-segment']);
    // A method whose path the public API does not have reaches no operation.
    expect(find('consents.list')).toEqual(['GET /v1/consents -']);
    expect(methods.filter((method) => method.operationId).length).toBeGreaterThan(100);
  });

  test('when the Node.js SDK voucherify is read, then its methods are matched the same way', () => {
    const methods = nodeSdkMethods(contract);
    const find = (name: string) => methods.filter((method) => method.name === name).map((method) => `${method.http} ${method.path} ${method.operationId ?? '-'}`);
    expect(find('vouchers.get')).toEqual(['GET /v1/vouchers/{code} get-voucher']);
    expect(find('vouchers.balance.create')).toEqual(['POST /v1/vouchers/{code}/balance update-voucher-balance']);
    expect(find('promotions.tiers.listAll')).toEqual(['GET /v1/promotions/tiers list-promotion-tiers']);
    // A path on the line after the call, a call from a closure in the constructor, an async generator.
    expect(find('redemptions.rollback')).toEqual(['POST /v1/redemptions/{redemptionId}/rollback rollback-redemption']);
    expect(find('distributions.publications.create')).toEqual(['POST /v1/publications create-publication']);
    expect(find('customers.scroll')).toEqual(['GET /v1/customers list-customers']);
    expect(methods.filter((method) => method.operationId).length).toBeGreaterThan(50);
  });

  test('when a client is recorded, then every method call is noted by its place, however deep', async () => {
    const calls = new Set<string>();
    const client = recording({ vouchers: { balance: { create: async () => 1 }, get: () => 2 }, version: '1' }, calls);
    expect(await client.vouchers.balance.create()).toBe(1);
    expect(client.vouchers.get()).toBe(2);
    expect(client.version).toBe('1');
    expect([...calls].sort()).toEqual(['vouchers.balance.create', 'vouchers.get']);
  });
});
