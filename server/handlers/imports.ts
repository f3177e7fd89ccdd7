import type { components } from '../../generated/openapi.js';
import { startAsyncAction, type AsyncActionType } from '../domain/async-actions.js';
import { newJob } from '../domain/background-jobs.js';
import { createProduct, updateProduct } from '../domain/catalog/products.js';
import { createSku } from '../domain/catalog/skus.js';
import type { DomainContext } from '../domain/context.js';
import { bulkUpsertCustomer, updateCustomer, upsertCustomer } from '../domain/customers.js';
import { ensureCategoryNamed } from '../domain/categories.js';
import { invalid, notFound } from '../domain/errors.js';
import { bulkInBackground, importInBackground, mergedMetadata, type BulkItem, type ImportItem, type JobScope } from '../domain/imports/jobs.js';
import { columnOf, customerFromCells, productFromCells, REQUIRED_COLUMNS, skuFromCells, voucherFromCells, type Cells } from '../domain/imports/rows.js';
import { createOrder } from '../domain/orders.js';
import { campaignForNewVouchers, createVoucher, findVoucher, updateVoucher, type VoucherInput } from '../domain/vouchers.js';
import { CsvFileError, readCsv, surveyCsv } from '../imports/csv.js';
import { checkRow } from '../imports/row-checker.js';
import type { HandlersOf, RequestContext, Services, UploadedFile } from './types.js';
import { inProject, jobClock } from './unit-of-work.js';
import { FRESH } from '../store/fresh.js';

type Schemas = components['schemas'];

type ImportOperations =
  | 'import-vouchers'
  | 'import-vouchers-using-csv'
  | 'import-vouchers-to-campaign'
  | 'import-vouchers-to-campaign-using-csv'
  | 'import-customers-using-csv'
  | 'import-products-using-csv'
  | 'import-SKUs-using-csv'
  | 'import-orders'
  | 'update-vouchers-in-bulk'
  | 'update-vouchers-metadata-in-bulk'
  | 'update-customers-in-bulk'
  | 'update-customers-metadata-in-bulk'
  | 'update-products-in-bulk'
  | 'update-products-metadata-in-bulk';

/**
 * Starts an async action, checking first (in the same unit of work) what must hold before any work starts, and
 * runs `work` in the background. Returns the async action's ID.
 */
async function start(
  services: Services,
  context: RequestContext,
  type: AsyncActionType,
  work: (scope: JobScope) => Promise<void>,
  before?: (ctx: DomainContext) => Promise<unknown>,
): Promise<{ async_action_id: string }> {
  // Read before the job is written, so that nothing stands between writing it and running it.
  const clock = await jobClock(services, context.projectId);
  const action = await inProject(services, context, async (ctx) => {
    await before?.(ctx);
    const started = await startAsyncAction(ctx, type, context.requestId);
    await newJob(ctx, services.leases.lease, started.id, 'import');
    return started;
  });
  const scope: JobScope = {
    store: services.store,
    clock,
    projectId: context.projectId,
    asyncActionId: action.id,
    source: { channel: 'API', api_key: { name: context.apiKey.name, app_id: context.apiKey.appId } },
  };
  services.leases.run(context.projectId, action.id, `${type} ${action.id}`, () => work(scope));
  return { async_action_id: action.id };
}

function badFile(details: string) {
  return invalid('invalid_payload', 'Invalid payload', details);
}

/** The uploaded file's bytes; a text field named `file` is taken as the file's content. */
function fileOf(file: UploadedFile | string): Buffer {
  return typeof file === 'string' ? Buffer.from(file) : file.buffer;
}

/** Reads a file through once before any work starts: a file that cannot be read, or lacks a column, is a 400. */
async function survey(file: Buffer, required: readonly string[]): Promise<number> {
  try {
    const { columns, records } = await surveyCsv(file);
    const missing = required.filter((column) => !columns.includes(column));
    if (missing.length > 0) throw badFile(`The file has no ${missing.join(', ')} column; its header names ${columns.join(', ')}`);
    return records;
  } catch (error) {
    if (error instanceof CsvFileError) throw badFile(`The file cannot be read as CSV${error.line !== undefined ? ` at line ${error.line}` : ''}: ${error.message}`);
    throw error;
  }
}

/**
 * The rows of a file as import items: each made into the body of the single create operation (`toBody`), held to
 * its schema in the contract (`schema`), and named by `label` in reports.
 */
async function* rowsOf<T>(
  file: Buffer,
  toBody: (cells: Cells) => T,
  check: (body: T) => ReturnType<typeof checkRow>,
  label: (cells: Cells) => { code?: string; source_id?: string },
): AsyncGenerator<ImportItem<T>> {
  for await (const record of readCsv(file)) {
    const named = label(record.cells);
    if (record.width) {
      yield { row: record.line, ...named, problem: { reason: `The line has ${record.width.cells} fields, the header ${record.width.columns}` } };
      continue;
    }
    const body = toBody(record.cells);
    const problem = check(body);
    if (!problem) {
      yield { row: record.line, ...named, value: body };
      continue;
    }
    const column = problem.field === undefined ? undefined : columnOf(problem.field);
    const reason = column !== undefined && column !== problem.field ? `${column}: ${problem.reason}` : problem.reason;
    yield { row: record.line, ...named, problem: { ...FRESH, ...(column !== undefined && { field: column }), reason } };
  }
}

const byCode = (cells: Cells) => (cells.code ? { code: cells.code } : {});
const bySourceId = (cells: Cells) => (cells.source_id ? { source_id: cells.source_id } : {});

/** The items of a JSON list, by their position in it. */
async function* listed<T extends object>(items: readonly T[], label: (item: T) => { code?: string; source_id?: string }): AsyncGenerator<ImportItem<T>> {
  for (const [index, item] of items.entries()) yield { row: index + 1, ...label(item), value: item };
}

const codeOf = (item: { code?: string | null }) => (item.code ? { code: item.code } : {});
const sourceIdOf = (item: { source_id?: string | null }) => (item.source_id ? { source_id: item.source_id } : {});

async function importVoucherFile(services: Services, context: RequestContext, file: Buffer, campaignId?: string) {
  const total = await survey(file, REQUIRED_COLUMNS.vouchers);
  let campaignType: Schemas['VoucherType'] | undefined;
  return start(
    services,
    context,
    campaignId === undefined ? 'VOUCHERS.IMPORT_CSV' : 'CAMPAIGN.VOUCHERS_IMPORT_CSV',
    (scope) =>
      importInBackground(scope, {
        items: rowsOf(file, (cells) => voucherFromCells(cells, campaignType), (body) => checkRow('VoucherImport', body), byCode),
        total,
        noun: 'vouchers',
        make: async (ctx, body) => {
          const input = body as VoucherInput;
          await ensureCategoryNamed(ctx, input.category);
          return campaignId === undefined ? createVoucher(ctx, input) : createVoucher(ctx, input, await campaignForNewVouchers(ctx, campaignId));
        },
      }),
    campaignId === undefined
      ? undefined
      : async (ctx) => {
          campaignType = (await campaignForNewVouchers(ctx, campaignId)).voucher?.type;
        },
  );
}

export const importHandlers: HandlersOf<ImportOperations> = {
  'import-vouchers': async ({ body, context, services }) => ({
    status: 202,
    body: await start(services, context, 'VOUCHERS.IMPORT', (scope) =>
      importInBackground(scope, { items: listed(body, codeOf), total: body.length, noun: 'vouchers', make: (ctx, item) => createVoucher(ctx, item) }),
    ),
  }),
  'import-vouchers-using-csv': async ({ body, context, services }) => ({ status: 202, body: await importVoucherFile(services, context, fileOf(body.file)) }),
  'import-vouchers-to-campaign': async ({ path, body, context, services }) => ({
    status: 202,
    body: await start(
      services,
      context,
      'CAMPAIGN.VOUCHERS_IMPORT',
      (scope) =>
        importInBackground(scope, {
          items: listed(body, codeOf),
          total: body.length,
          noun: 'vouchers',
          make: async (ctx, item) => createVoucher(ctx, item, await campaignForNewVouchers(ctx, path.campaignId)),
        }),
      (ctx) => campaignForNewVouchers(ctx, path.campaignId),
    ),
  }),
  'import-vouchers-to-campaign-using-csv': async ({ path, body, context, services }) => ({
    status: 200,
    body: await importVoucherFile(services, context, fileOf(body.file), path.campaignId),
  }),
  'import-customers-using-csv': async ({ body, context, services }) => {
    const file = fileOf(body.file);
    const total = await survey(file, REQUIRED_COLUMNS.customers);
    return {
      status: 202,
      body: await start(services, context, 'CUSTOMERS.IMPORT_CSV', (scope) =>
        importInBackground(scope, {
          items: rowsOf(file, customerFromCells, (row) => checkRow('CustomersCreateRequestBody', row), bySourceId),
          total,
          noun: 'customers',
          make: (ctx, row) => upsertCustomer(ctx, row as Schemas['CustomersCreateRequestBody']),
        }),
      ),
    };
  },
  'import-products-using-csv': async ({ body, context, services }) => {
    const file = fileOf(body.file);
    const total = await survey(file, REQUIRED_COLUMNS.products);
    return {
      status: 200,
      body: await start(services, context, 'PRODUCTS.IMPORT_CSV', (scope) =>
        importInBackground(scope, {
          items: rowsOf(file, productFromCells, (row) => checkRow('ProductsCreateRequestBody', row), bySourceId),
          total,
          noun: 'products',
          make: (ctx, row) => createProduct(ctx, row as Schemas['ProductsCreateRequestBody']),
        }),
      ),
    };
  },
  'import-SKUs-using-csv': async ({ body, context, services }) => {
    const file = fileOf(body.file);
    const total = await survey(file, REQUIRED_COLUMNS.skus);
    return {
      status: 200,
      body: await start(services, context, 'SKUS.IMPORT_CSV', (scope) =>
        importInBackground(scope, {
          items: rowsOf(
            file,
            skuFromCells,
            (row) => (row.product ? checkRow('ProductsSkusCreateRequestBody', row.body) : { field: 'product_id', reason: 'product_id is empty' }),
            bySourceId,
          ),
          total,
          noun: 'SKUs',
          make: (ctx, row) => createSku(ctx, row.product, row.body as Schemas['ProductsSkusCreateRequestBody']),
        }),
      ),
    };
  },
  'import-orders': async ({ body, context, services }) => ({
    status: 200,
    body: await start(services, context, 'ORDERS.IMPORT', (scope) =>
      importInBackground(scope, { items: listed(body, sourceIdOf), total: body.length, noun: 'orders', make: (ctx, order) => createOrder(ctx, order) }),
    ),
  }),
  'update-vouchers-in-bulk': async ({ body, context, services }) => ({
    status: 202,
    body: await start(services, context, 'VOUCHERS.BULK_UPDATE', (scope) =>
      bulkInBackground(scope, {
        items: body.map((item): BulkItem<Record<string, unknown>> => ({ code: item.code, value: item.metadata })),
        update: (ctx, item) => setVoucherMetadata(ctx, item.code!, item.value),
      }),
    ),
  }),
  'update-vouchers-metadata-in-bulk': async ({ body, context, services }) => ({
    status: 202,
    body: await start(services, context, 'VOUCHERS.METADATA_UPDATE', (scope) =>
      bulkInBackground(scope, {
        items: body.codes.map((code) => ({ code, value: body.metadata })),
        update: (ctx, item) => setVoucherMetadata(ctx, item.code!, item.value),
      }),
    ),
  }),
  'update-customers-in-bulk': async ({ body, context, services }) => ({
    status: 202,
    body: await start(services, context, 'CUSTOMERS.BULK_UPDATE', (scope) =>
      bulkInBackground(scope, {
        items: body.map((customer) => ({ source_id: customer.source_id, value: customer })),
        update: (ctx, item) => bulkUpsertCustomer(ctx, item.value as Schemas['CustomersCreateRequestBody']),
      }),
    ),
  }),
  'update-customers-metadata-in-bulk': async ({ body, context, services }) => ({
    status: 202,
    body: await start(services, context, 'CUSTOMERS.METADATA_UPDATE', (scope) =>
      bulkInBackground(scope, {
        items: body.source_ids.map((sourceId) => ({ source_id: sourceId, value: body.metadata })),
        update: async (ctx, item) => {
          const customer = await ctx.uow.customers.getBy('source_id', item.source_id);
          if (!customer) throw notFound('customer', item.source_id!);
          return updateCustomer(ctx, customer.id, { metadata: mergedMetadata(customer.metadata, item.value) });
        },
      }),
    ),
  }),
  'update-products-in-bulk': async ({ body, context, services }) => ({
    status: 202,
    body: await start(services, context, 'PRODUCTS.BULK_UPDATE', (scope) =>
      bulkInBackground(scope, {
        items: body.map((product) => ({ source_id: product.source_id, value: product })),
        update: async (ctx, item) => {
          const existing = await ctx.uow.products.getBy('source_id', item.source_id);
          if (!existing) return createProduct(ctx, item.value);
          const { metadata, source_id: _same, ...fields } = item.value;
          return updateProduct(ctx, existing.id, { ...FRESH, ...fields, ...(metadata && { metadata: mergedMetadata(existing.metadata, metadata) }) });
        },
      }),
    ),
  }),
  'update-products-metadata-in-bulk': async ({ body, context, services }) => ({
    status: 202,
    body: await start(services, context, 'PRODUCTS.METADATA_UPDATE', (scope) =>
      bulkInBackground(scope, {
        items: body.source_ids.map((sourceId) => ({ source_id: sourceId, value: body.metadata })),
        update: async (ctx, item) => {
          const product = await ctx.uow.products.getBy('source_id', item.source_id);
          if (!product) throw notFound('product', item.source_id!);
          return updateProduct(ctx, product.id, { metadata: mergedMetadata(product.metadata, item.value) });
        },
      }),
    ),
  }),
};

/** Sets metadata keys on a voucher through the update operation's domain function. */
async function setVoucherMetadata(ctx: DomainContext, code: string, changes: Record<string, unknown>) {
  const voucher = await findVoucher(ctx, code);
  return updateVoucher(ctx, code, { metadata: mergedMetadata(voucher.metadata, changes) });
}
