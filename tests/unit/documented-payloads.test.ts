/**
 * Payloads of the kinds the public API documents, which the published contract once refused: image URLs of
 * any form, SKU attribute values that are not strings, fields its documented answers leave out, a radius
 * written with a space, an empty export order, the nulls its documented answers show, and RFC 7662's
 * inactive token answer. Each is checked against the bundled contract (and, where it says something of our
 * own server, the strict twin). The payloads are written here; none is copied from the vendor's reference.
 */
import { describe, expect, test } from '@jest/globals';
import { Ajv2020 } from 'ajv/dist/2020.js';
import * as ajvFormats from 'ajv-formats';
import { readFileSync } from 'node:fs';
import { BUNDLED_CONTRACT, STRICT_CONTRACT } from '../../server/paths.js';
import { ContractWalker } from '../inventory/coverage.js';

type FormatsPlugin = (ajv: Ajv2020, options: { mode: 'full' }) => unknown;
const formatsModule = ajvFormats as unknown as { default: FormatsPlugin | { default: FormatsPlugin } };
const addFormats: FormatsPlugin = typeof formatsModule.default === 'function' ? formatsModule.default : formatsModule.default.default;

const published = JSON.parse(readFileSync(BUNDLED_CONTRACT, 'utf8')) as Record<string, unknown>;
const strict = JSON.parse(readFileSync(STRICT_CONTRACT, 'utf8')) as Record<string, unknown>;
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
addFormats(ajv, { mode: 'full' });
ajv.addSchema(published, 'published');
ajv.addSchema(strict, 'strict');
const walker = new ContractWalker(published);

/** Whether the schema at a pointer of the contract (`Segment/properties/updated_at`) accepts the value. */
function accepts(pointer: string, value: unknown, contract: 'published' | 'strict' = 'published'): boolean {
  const validate = ajv.getSchema(`${contract}#/components/schemas/${pointer}`);
  if (!validate) throw new Error(`no schema at ${pointer}`);
  return validate(value) as boolean;
}
const requires = (schema: string, field: string) => walker.requires({ $ref: `#/components/schemas/${schema}` }, field);

describe('documented payloads the contract accepts', () => {
  test.each([
    ['an https picture', 'https://images.example.com/mug.png'],
    ['a plain http address without an extension', 'http://images.example.com/products/42'],
    ['a CDN address with a query', 'https://cdn.example.com/i/42?w=200'],
    ['an empty string', ''],
  ])('an image URL may be %s: products, SKUs, collection SKUs and rewards', (_, url) => {
    expect(accepts('ImageUrl', url)).toBe(true);
    expect(accepts('ProductFields/properties/image_url', url)).toBe(true);
    expect(accepts('SkuFields/properties/image_url', url)).toBe(true);
    expect(accepts('RewardAttributes', { image_url: url })).toBe(true);
  });

  test('SKU attribute values may be of any JSON type; a string value keeps its bound', () => {
    expect(accepts('SkuAttributes', { size: '250g', ranking: 1, organic: true, tags: ['dark'], notes: null })).toBe(true);
    expect(accepts('SkuAttributes', { size: 'x'.repeat(256) })).toBe(false);
  });

  test.each([
    ['Webhook', ['secret', 'updated_at']],
    ['Brand', ['cockpits', 'created_at', 'updated_at']],
    ['EarningRule', ['validation_rule_id']],
    ['LoyaltyPendingPointsBalance', ['type', 'balance']],
    ['ValidationFailure', ['code']],
  ])('%s does not require %j, which documented answers leave out', (schema, fields) => {
    expect(fields.filter((field) => requires(schema, field))).toEqual([]);
  });

  test('a circle radius may be written with a space before its unit; other text is still refused', () => {
    const circle = (radius: string) => ({ type: 'circle', format: 'distance', distance: { center: 'geo:52.2297,21.0122', radius } });
    for (const radius of ['1.54 km', '1.54km', '800 m', '5km']) expect(accepts('LocationShape', circle(radius))).toBe(true);
    for (const radius of ['1.54  km', 'far', '5 miles']) expect(accepts('LocationShape', circle(radius))).toBe(false);
  });

  test('an export shows an empty order for one asked for without any', () => {
    for (const kind of ['Customer', 'Order', 'Publication', 'Redemption', 'Voucher', 'VoucherTransactions']) {
      expect(accepts(`Export${kind}Parameters/properties/order`, '')).toBe(true);
    }
  });

  test.each([
    'Segment/properties/updated_at',
    'PromotionTier/properties/validation_rule_assignments',
    'PromotionTier/properties/campaign_id',
    'RewardBase/properties/metadata',
    'Gift/properties/effect',
    'SimpleCustomer/properties/email',
    'SimpleCustomer/properties/name',
    'ValidationRuleApplicableToItem/properties/source_id',
  ])('%s accepts null', (pointer) => {
    expect(accepts(pointer, null)).toBe(true);
  });

  test("an inactive token's introspection is {active: false} alone (RFC 7662); an active one is described in full", () => {
    expect(accepts('OAuthIntrospection', { active: false })).toBe(true);
    expect(accepts('OAuthIntrospection', { active: false }, 'strict')).toBe(true);
    // This server tells nothing more of a token that cannot be used.
    expect(accepts('OAuthIntrospection', { active: false, client_id: '', expires_in: 0 }, 'strict')).toBe(false);
    const active = { access_token: 'tok', client_id: 'app', expires_at: 1_800_000_000, expires_in: 60, scope: 'api', token_type: 'Bearer', active: true };
    expect(accepts('OAuthIntrospection', active, 'strict')).toBe(true);
    expect(accepts('OAuthIntrospection', { active: true })).toBe(false);
  });
});
