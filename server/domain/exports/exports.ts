/**
 * Exports: a request for a CSV file of a project's objects, kept with its status while the file is written in the
 * background (server/exports/runner.ts). What each kind exports is in kinds.ts.
 */
import type { components } from '../../../generated/openapi.js';
import { findCampaign } from '../campaign-lookup.js';
import type { DomainContext } from '../context.js';
import { invalid, notFound } from '../errors.js';
import { newId } from '../ids.js';
import { pageWindow, parseOrder, type PageRequest } from '../pagination.js';
import { checkExportFilter } from './conditions.js';
import { EXPORT_KINDS, type ExportedObject, type ExportPlan } from './kinds.js';
import { table } from '../../store/schema.js';
import { FRESH } from '../../store/fresh.js';
import { isoNow } from '../clock.js';

type Schemas = components['schemas'];
export type Export = Schemas['Export'];
export type ExportStatus = 'SCHEDULED' | 'IN_PROGRESS' | 'DONE' | 'ERROR';

export interface ExportParameters {
  order: string;
  fields: string[];
  filters?: Record<string, unknown>;
  campaign_id?: string;
}

/** An export as stored: what the contract shows, and what the writer needs besides. */
export interface ExportRecord {
  id: string;
  object: 'export';
  created_at: string;
  status: ExportStatus;
  channel: 'API';
  user_id: null;
  exported_object: ExportedObject;
  /** As the export shows them: the columns written, the order, and the filters with the export's scope. */
  parameters: ExportParameters;
  /** The filters as the client sent them, which the writer applies besides the scope. */
  client_filters: Record<string, unknown> | null;
  /** A condition every row meets: the campaign of a voucher export, the voucher or campaign of a transaction export. */
  scope: { field: string; value: string } | null;
  /** Why the file could not be written, for an export in ERROR. */
  failure: string | null;
}

export const EXPORTS_TABLE = table<ExportRecord>({ unique: [], indexed: [], ordered: ['created_at'], kinds: { created_at: 'text', status: 'text' } });

export interface ExportRequest {
  exported_object: ExportedObject;
  parameters?: { order?: string; fields?: string[]; filters?: Record<string, unknown> | null; campaign_id?: string };
}

function refuse(details: string) {
  return invalid('invalid_export', 'Invalid export', details);
}

/**
 * Records a new export, `SCHEDULED`. Everything is checked here, so that an export that would fail on its
 * parameters is refused (400) instead of ending in `ERROR`. `scope` narrows a transaction export to one voucher
 * or campaign.
 */
export async function createExport(ctx: DomainContext, request: ExportRequest, scope?: { field: 'voucher_id' | 'campaign_id'; value: string }): Promise<ExportRecord> {
  const kind = EXPORT_KINDS[request.exported_object];
  const given = request.parameters ?? {};
  const fields = given.fields && given.fields.length > 0 ? given.fields : [...kind.defaults];
  const unknown = fields.filter((field) => !kind.fields.includes(field));
  if (unknown.length > 0) throw refuse(`An export of ${request.exported_object} has no field ${unknown.join(', ')}; it has ${kind.fields.join(', ')}`);
  if (new Set(fields).size !== fields.length) throw refuse('parameters.fields names a field twice');
  // An empty order (as the public API shows an export asked for without one) is the default.
  const order = given.order || kind.defaultOrder;
  if (!kind.orders.includes(order)) throw refuse(`An export of ${request.exported_object} is ordered by ${kind.orders.join(', ')}, not ${order}`);
  const filters = given.filters ?? undefined;
  checkExportFilter(filters, kind.filterFields, kind.listFields, kind.metadata);
  let rowScope: ExportRecord['scope'] = scope ?? null;
  if (request.exported_object === 'voucher' && given.campaign_id !== undefined) {
    rowScope = { field: 'campaign_id', value: (await findCampaign(ctx, given.campaign_id)).id };
  }
  // The export shows its scope as the filter it amounts to, as the public API shows it.
  const shown = scope && !(filters && scope.field in filters) ? { junction: 'and', ...filters, [scope.field]: { conditions: { $in: [scope.value] } } } : filters;
  const record: ExportRecord = {
    id: newId('exp'),
    object: 'export',
    created_at: isoNow(ctx.clock),
    status: 'SCHEDULED',
    channel: 'API',
    user_id: null,
    exported_object: request.exported_object,
    parameters: {
      order,
      fields,
      ...(shown && { filters: shown }),
      ...(request.exported_object === 'voucher' && given.campaign_id !== undefined && { campaign_id: given.campaign_id }),
    },
    client_filters: filters ?? null,
    scope: rowScope,
    failure: null,
  };
  return ctx.uow.exports.insert(record);
}

/** How the writer reads the export's rows. */
export function exportPlan(record: ExportRecord, now: Date): ExportPlan {
  const kind = EXPORT_KINDS[record.exported_object];
  return {
    fields: record.parameters.fields,
    order: parseOrder(record.parameters.order),
    filter: checkExportFilter(record.client_filters ?? undefined, kind.filterFields, kind.listFields, kind.metadata),
    scope: record.scope ?? undefined,
    now: now.getTime(),
  };
}

/** The export as the contract shows it; `url` is where its file is, once it is done. */
export function presentExport(record: ExportRecord, url: (record: ExportRecord) => string): Export {
  return {
    id: record.id,
    object: 'export',
    created_at: record.created_at,
    status: record.status,
    channel: record.channel,
    result: record.status === 'DONE' ? { url: url(record) } : null,
    user_id: null,
    exported_object: record.exported_object,
    parameters: record.parameters,
  } as Export;
}

export async function findExport(ctx: DomainContext, id: string): Promise<ExportRecord> {
  const record = await ctx.uow.exports.get(id);
  if (!record) throw notFound('export', id);
  return record;
}

export async function listExports(ctx: DomainContext, query: PageRequest & { order?: 'created_at' | '-created_at' | 'status' | '-status' }) {
  return ctx.uow.exports.query({ orderBy: parseOrder<'created_at' | 'status'>(query.order ?? '-created_at'), ...pageWindow(query) });
}

/** Deletes the export; the caller removes its file. */
export async function deleteExport(ctx: DomainContext, id: string): Promise<ExportRecord> {
  const record = await findExport(ctx, id);
  await ctx.uow.exports.delete(record.id);
  return record;
}

/** Moves an export on, unless it was deleted meanwhile (then false). */
export async function setExportStatus(ctx: DomainContext, id: string, status: ExportStatus, failure: string | null = null): Promise<boolean> {
  const record = await ctx.uow.exports.get(id);
  if (!record) return false;
  await ctx.uow.exports.update({ ...FRESH, ...record, status, failure });
  return true;
}
