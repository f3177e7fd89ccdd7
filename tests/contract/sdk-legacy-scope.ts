/**
 * The operations of the deprecated single-object family and its neighbours (sessions, a parent's rollbacks,
 * publications by link and client-side, a customer's redeemables). Their SDK methods are driven by
 * `sdk-legacy.test.ts` and `sdk-node-legacy.test.ts`; the other SDK files, whose namespaces these methods
 * share, leave them to those two.
 */
import { readFileSync } from 'node:fs';
import { BUNDLED_CONTRACT } from '../../server/paths.js';
import { nodeSdkMethods, voucherifySdkMethods, type SdkName } from './sdk-methods.js';

export const LEGACY_OPERATIONS: ReadonlySet<string> = new Set([
  'validate-voucher',
  'validate-promotions',
  'validate-promotion-tier',
  'redeem-voucher',
  'redeem-promotion',
  'validate-voucher-client-side',
  'redeem-voucher-client-side',
  'examine-vouchers-qualification',
  'examine-campaign-qualification',
  'rollback-stacked-redemptions',
  'create-publication-client-side',
  'create-publication-1',
  'list-customer-redeemables',
  'release-validation-session',
]);

/** The methods of one SDK that reach one of those operations, by their place (`redemptions.redeem`). */
export function legacyMethods(sdk: SdkName): string[] {
  const contract = JSON.parse(readFileSync(BUNDLED_CONTRACT, 'utf8'));
  const methods = sdk === 'voucherify' ? nodeSdkMethods(contract) : voucherifySdkMethods(contract);
  return [...new Set(methods.filter((method) => method.operationId !== undefined && LEGACY_OPERATIONS.has(method.operationId)).map((method) => method.name))].sort();
}
