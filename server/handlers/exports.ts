import { findCampaign } from '../domain/campaign-lookup.js';
import type { DomainContext } from '../domain/context.js';
import { notFound } from '../domain/errors.js';
import type { components } from '../../generated/openapi.js';
import { createExport, deleteExport, findExport, listExports, presentExport, type Export, type ExportRecord, type ExportRequest } from '../domain/exports/exports.js';
import { findMember, findProgram } from '../domain/loyalty/programs.js';
import { findVoucher } from '../domain/vouchers.js';
import { runExport } from '../exports/runner.js';
import { newJob } from '../domain/background-jobs.js';
import { HttpError } from '../http/errors.js';
import { FileBody, type HandlersOf, type RequestContext, type Services } from './types.js';
import { inProject, jobClock } from './unit-of-work.js';

type ExportOperations =
  | 'list-exports'
  | 'create-export'
  | 'get-export'
  | 'delete-export'
  | 'download-export'
  | 'export-voucher-transactions'
  | 'export-campaign-transactions'
  | 'export-loyalty-campaign-transactions'
  | 'export-loyalty-card-transactions'
  | 'export-loyalty-card-transactions-1'
  | 'create-points-expiration-export'
  | 'create-order-export';

type Schemas = components['schemas'];
type Scope = { field: 'voucher_id' | 'campaign_id'; value: string };

/** Where an export's file is downloaded: below the export, with the token that binds the address to it. */
function fileUrl(services: Services, context: RequestContext) {
  return (record: ExportRecord) =>
    `${services.publicBaseUrl()}/v1/exports/${encodeURIComponent(record.id)}/download?token=${services.exportFiles.token(context.projectId, record.id)}`;
}

function present(services: Services, context: RequestContext, record: ExportRecord) {
  return presentExport(record, fileUrl(services, context));
}

/**
 * Records the export and starts writing its file in the background. `scoped` finds the voucher or campaign a
 * transaction export is narrowed to, in the same unit of work.
 */
async function startExport<T extends Schemas['ExportFields'] = Export>(
  services: Services,
  context: RequestContext,
  request: ExportRequest,
  scoped?: (ctx: DomainContext) => Promise<Scope>,
): Promise<T> {
  // Read before the job is written, so that nothing stands between writing it and running it.
  const clock = await jobClock(services, context.projectId);
  const record = await inProject(services, context, async (ctx) => {
    const made = await createExport(ctx, request, scoped ? await scoped(ctx) : undefined);
    await newJob(ctx, services.leases.lease, made.id, 'export');
    return made;
  });
  const { projectId } = context;
  const links = {
    assets: (code: string) => {
      const assets = services.assets.assets(projectId, code, services.publicBaseUrl());
      return { qr: assets.qr.url, barcode: assets.barcode.url };
    },
  };
  services.leases.run(projectId, record.id, `export ${record.id}`, () => runExport({ store: services.store, clock, files: services.exportFiles, links }, projectId, record.id));
  // The kind of export is the request's, so the view is that kind's.
  return present(services, context, record) as T;
}

type TransactionParameters = ExportRequest['parameters'];
const transactions = (parameters: TransactionParameters | undefined): ExportRequest => ({ exported_object: 'voucher_transactions', ...(parameters && { parameters }) });

export const exportHandlers: HandlersOf<ExportOperations> = {
  'list-exports': async ({ query, context, services }) => {
    const page = await inProject(services, context, (ctx) => listExports(ctx, query));
    return { status: 200, body: { object: 'list', data_ref: 'exports', exports: page.rows.map((record) => present(services, context, record)), total: page.total } };
  },
  'create-export': async ({ body, context, services }) => ({ status: 200, body: await startExport(services, context, body as ExportRequest) }),
  'get-export': async ({ path, context, services }) => ({
    status: 200,
    body: present(services, context, await inProject(services, context, (ctx) => findExport(ctx, path.exportId))),
  }),
  'delete-export': async ({ path, context, services }) => {
    const record = await inProject(services, context, (ctx) => deleteExport(ctx, path.exportId));
    await services.exportFiles.remove(context.projectId, record.id);
    return { status: 204 };
  },
  'download-export': async ({ path, query, context, services }) => {
    const record = await inProject(services, context, (ctx) => findExport(ctx, path.export_Id));
    if (query.token !== undefined && !services.exportFiles.checkToken(context.projectId, record.id, query.token)) {
      throw new HttpError(401, 'unauthorized', 'Unauthorized', `The token is not the one of export ${record.id}`);
    }
    const stream = record.status === 'DONE' ? await services.exportFiles.open(context.projectId, record.id) : undefined;
    if (!stream) throw notFound('export file', record.id);
    return { status: 200, body: new FileBody(stream, 'text/csv; charset=utf-8', `${record.id}.csv`) };
  },
  'export-voucher-transactions': async ({ path, body, context, services }) => ({
    status: 200,
    body: (await startExport<Schemas['ExportVoucherTransactions']>(services, context, transactions(body.parameters), async (ctx) => ({ field: 'voucher_id', value: (await findVoucher(ctx, path.code)).id }))),
  }),
  'export-campaign-transactions': async ({ path, body, context, services }) => ({
    status: 200,
    body: (await startExport<Schemas['ExportVoucherTransactions']>(services, context, transactions(body.parameters), async (ctx) => ({ field: 'campaign_id', value: (await findCampaign(ctx, path.campaignId)).id }))),
  }),
  'export-loyalty-campaign-transactions': async ({ path, body, context, services }) => ({
    status: 200,
    body: (await startExport<Schemas['ExportVoucherTransactions']>(services, context, transactions(body.parameters), async (ctx) => ({ field: 'campaign_id', value: (await findProgram(ctx, path.campaignId)).id }))),
  }),
  'export-loyalty-card-transactions': async ({ path, body, context, services }) => ({
    status: 200,
    body: (await startExport<Schemas['ExportVoucherTransactions']>(services, context, transactions(body.parameters), async (ctx) => ({ field: 'voucher_id', value: (await findMember(ctx, path.memberId)).id }))),
  }),
  'export-loyalty-card-transactions-1': async ({ path, body, context, services }) => ({
    status: 200,
    body: (await startExport<Schemas['ExportVoucherTransactions']>(services, context, transactions(body.parameters), async (ctx) => ({
      field: 'voucher_id',
      value: (await findMember(ctx, path.memberId, path.campaignId)).id,
    }))),
  }),
  'create-points-expiration-export': async ({ path, body, context, services }) => ({
    status: 200,
    body: (await startExport<Schemas['PointsExpirationExportResponseBody']>(services, context, { exported_object: 'points_expiration', ...(body.parameters && { parameters: body.parameters }) }, async (ctx) => ({
      field: 'campaign_id',
      value: (await findProgram(ctx, path.campaignId)).id,
    }))),
  }),
  'create-order-export': async ({ body, context, services }) => ({
    status: 200,
    body: (await startExport<Schemas['ExportOrder']>(services, context, { exported_object: 'order', ...(body.parameters && { parameters: body.parameters }) })),
  }),
};
