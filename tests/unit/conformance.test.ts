import { describe, expect, test } from '@jest/globals';
import { ConformanceChecker } from '../contract/conformance.js';

const checker = new ConformanceChecker();
const error = (code: number, key: string) => JSON.stringify({ code, key, message: 'm', details: 'd', request_id: 'r' });
const json = 'application/json; charset=utf-8';

describe('the client-side contract check', () => {
  test('when a list has a wrong object value, a field of the wrong type or an undocumented field, then each is named', () => {
    const list = { object: 'list', data_ref: 'products', products: [], total: 0 };
    const check = (body: unknown) =>
      checker.check({ method: 'GET', url: 'http://h/v1/products?limit=2', status: 200, contentType: json, body: JSON.stringify(body) });
    expect(check(list)).toMatchObject({ operationId: 'list-products', violations: [] });
    expect(check({ ...list, object: 'products' }).violations.join()).toMatch(/\/object must be equal to constant/);
    expect(check({ ...list, total: '0' }).violations.join()).toMatch(/\/total must be integer/);
    expect(check({ ...list, extra: 1 }).violations.join()).toMatch(/must NOT have (additional|unevaluated) properties 'extra'/);
  });

  test('when the status or media type is undocumented, or a body comes where none is documented, then it is named', () => {
    const base = { method: 'GET', url: 'http://h/v1/products', contentType: json };
    expect(checker.check({ ...base, status: 418, body: '{}' }).violations.join()).toMatch(/status 418 is not documented for list-products/);
    expect(checker.check({ ...base, status: 400, contentType: 'text/html', body: 'oops' }).violations.join()).toMatch(/Content-Type text\/html/);
    expect(checker.check({ ...base, status: 500, body: 'oops' }).violations.join()).toMatch(/not JSON/);
    expect(checker.check({ ...base, method: 'DELETE', url: 'http://h/v1/products/p1', status: 204, body: 'x' }).violations.join()).toMatch(/documents no body/);
  });

  test('when the path or method is not in the contract, then only an error in the shared shape conforms', () => {
    expect(checker.check({ method: 'GET', url: 'http://h/v1/nothing', status: 404, contentType: json, body: error(404, 'route_not_found') })).toEqual({ violations: [] });
    expect(checker.check({ method: 'GET', url: 'http://h/v1/nothing', status: 200, contentType: json, body: '{}' }).violations).toHaveLength(1);
    expect(checker.check({ method: 'PATCH', url: 'http://h/v1/products/p', status: 405, contentType: json, body: '{"code":405}' }).violations.join()).toMatch(/must have required property/);
  });

  test('when literal and parameter paths overlap, then the literal one is chosen', () => {
    expect(checker.route('GET', 'http://h/v1/promotions/tiers/t1')?.template).toBe('/v1/promotions/tiers/{promotionTierId}');
    expect(checker.route('GET', 'http://h/v1/promotions/camp_1/tiers?limit=1')?.template).toBe('/v1/promotions/{campaignId}/tiers');
    expect(checker.route('GET', 'http://h/v1/products/')?.template).toBe('/v1/products');
  });
});
