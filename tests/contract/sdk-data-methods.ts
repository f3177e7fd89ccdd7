/**
 * The operations of exports, imports, bulk jobs and balance transactions. Their SDK methods sit in namespaces
 * other SDK files cover (`vouchers`, `customers`, `products`, `orders`, `loyalties`…) but are called in
 * sdk-data.test.ts and sdk-node-data.test.ts; those other files leave them out of their coverage checks.
 */
import { readFileSync } from 'node:fs';
import { BUNDLED_CONTRACT } from '../../server/paths.js';
import { nodeSdkMethods, voucherifySdkMethods, type SdkName } from './sdk-methods.js';

export const DATA_OPERATIONS: ReadonlySet<string> = new Set([
  'list-async-actions',
  'create-export', 'list-exports', 'get-export', 'delete-export', 'download-export',
  'export-voucher-transactions', 'export-campaign-transactions', 'export-loyalty-campaign-transactions',
  'export-loyalty-card-transactions', 'export-loyalty-card-transactions-1', 'create-points-expiration-export', 'create-order-export',
  'import-vouchers', 'import-vouchers-using-csv', 'import-vouchers-to-campaign', 'import-vouchers-to-campaign-using-csv',
  'import-customers-using-csv', 'import-products-using-csv', 'import-SKUs-using-csv', 'import-orders',
  'update-vouchers-in-bulk', 'update-customers-in-bulk', 'update-products-in-bulk',
  'update-vouchers-metadata-in-bulk', 'update-customers-metadata-in-bulk', 'update-products-metadata-in-bulk',
  'list-voucher-transactions', 'list-campaign-transactions', 'list-loyalty-campaign-transactions',
]);

/** The methods of an SDK that reach one of these operations, by their place on the client (`vouchers.import`). */
export function dataMethods(sdk: SdkName): string[] {
  const contract = JSON.parse(readFileSync(BUNDLED_CONTRACT, 'utf8'));
  const methods = sdk === '@voucherify/sdk' ? voucherifySdkMethods(contract) : nodeSdkMethods(contract);
  return [...new Set(methods.filter((method) => method.operationId !== undefined && DATA_OPERATIONS.has(method.operationId)).map((method) => method.name))].sort();
}
