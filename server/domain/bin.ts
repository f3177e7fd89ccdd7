/**
 * The bin: campaigns and vouchers deleted without `force`. A binned object is gone from every get and list
 * (its rows leave the live tables at once, with everything that hangs off them), but it keeps its code or
 * name until its bin entry is deleted, which completes the deletion. The bin keeps the records as they stood.
 */
import type { CampaignRecord } from './campaigns.js';
import type { DomainContext } from './context.js';
import { duplicate, notFound } from './errors.js';
import { newId } from './ids.js';
import { idOrderedPage, idOrderedQuery, listFilter, type IdCursorQuery } from './list-filters.js';
import type { VoucherRecord } from './vouchers.js';
import { dropHoldersOf } from './redeemable-holders.js';
import { table } from '../store/schema.js';
import { isoNow } from './clock.js';

export type BinResourceType = 'campaign' | 'voucher';

/** A bin entry as stored. */
export interface BinEntryRecord {
  id: string;
  created_at: string;
  deleted_by_user_id: null;
  resource_id: string;
  resource_type: BinResourceType;
  resource_name: string;
  resource_parent_id: string | null;
  /** A binned campaign's name, unique among bin entries, so that no new campaign can take it meanwhile. */
  campaign_name: string | null;
  /** A binned campaign as it stood when deleted. */
  campaign: CampaignRecord | null;
}

export const BIN_ENTRIES_TABLE = table<BinEntryRecord>({ unique: ['campaign_name'], indexed: [], kinds: { id: 'text' } });

/** A voucher in the bin, alone or with its campaign; its code stays taken while it is here. */
export interface BinnedVoucher {
  /** The voucher's ID. */
  id: string;
  code: string;
  bin_entry_id: string;
  voucher: VoucherRecord;
}

export const BINNED_VOUCHERS_TABLE = table<BinnedVoucher>({ unique: ['code'], indexed: ['bin_entry_id'] });

/** Refuses a code a binned voucher still holds, as a live voucher's code is refused. */
export async function ensureCodeFree(ctx: DomainContext, code: string): Promise<void> {
  if (await ctx.uow.binned_vouchers.getBy('code', code)) throw duplicate('voucher', 'code', code);
}

/** Whether a binned voucher holds the code (generated codes skip such codes). */
export async function codeInBin(ctx: DomainContext, code: string): Promise<boolean> {
  return (await ctx.uow.binned_vouchers.getBy('code', code)) !== undefined;
}

/** Refuses a name a binned campaign still holds, as a live campaign's name is refused. */
export async function ensureCampaignNameFree(ctx: DomainContext, name: string): Promise<void> {
  if (await ctx.uow.bin_entries.getBy('campaign_name', name)) throw duplicate('campaign', 'name', name);
}

function entry(ctx: DomainContext, fields: Pick<BinEntryRecord, 'resource_id' | 'resource_type' | 'resource_name' | 'resource_parent_id' | 'campaign_name' | 'campaign'>): BinEntryRecord {
  return { id: newId('bin'), created_at: isoNow(ctx.clock), deleted_by_user_id: null, ...fields };
}

/** Keeps a campaign and the vouchers it held in the bin; the caller has removed them from the live tables. */
export async function binCampaign(ctx: DomainContext, campaign: CampaignRecord, vouchers: readonly VoucherRecord[]): Promise<BinEntryRecord> {
  const made = await ctx.uow.bin_entries.insert(
    entry(ctx, {
      resource_id: campaign.id,
      resource_type: 'campaign',
      resource_name: campaign.name,
      resource_parent_id: null,
      campaign_name: campaign.name,
      campaign,
    }),
  );
  for (const voucher of vouchers) await ctx.uow.binned_vouchers.insert({ id: voucher.id, code: voucher.code, bin_entry_id: made.id, voucher });
  return made;
}

/** Keeps a voucher deleted on its own in the bin; the caller has removed it from the live tables. */
export async function binVoucher(ctx: DomainContext, voucher: VoucherRecord): Promise<BinEntryRecord> {
  const made = await ctx.uow.bin_entries.insert(
    entry(ctx, {
      resource_id: voucher.id,
      resource_type: 'voucher',
      resource_name: voucher.code,
      resource_parent_id: voucher.campaign_id,
      campaign_name: null,
      campaign: null,
    }),
  );
  await ctx.uow.binned_vouchers.insert({ id: voucher.id, code: voucher.code, bin_entry_id: made.id, voucher });
  return made;
}

/** A bin entry as the contract shows it. */
function presentEntry(record: BinEntryRecord) {
  return {
    id: record.id,
    created_at: record.created_at,
    deleted_by_user_id: record.deleted_by_user_id,
    resource_id: record.resource_id,
    resource_type: record.resource_type,
    resource_name: record.resource_name,
    resource_parent_id: record.resource_parent_id,
    object: record.resource_type,
  };
}

const BIN_FILTER_FIELDS: ReadonlySet<string> = new Set(['id', 'resource_id', 'resource_name', 'resource_type']);

export async function listBinEntries(ctx: DomainContext, query: IdCursorQuery & { filters?: Record<string, unknown> }) {
  const filter = listFilter(query.filters, BIN_FILTER_FIELDS);
  const { rows } = await ctx.uow.bin_entries.query(idOrderedQuery(filter, query));
  return idOrderedPage(rows.map(presentEntry), query);
}

/** Completes the deletion the entry holds: its vouchers' codes and its campaign's name are free again. */
export async function deleteBinEntry(ctx: DomainContext, id: string): Promise<void> {
  const found = await ctx.uow.bin_entries.get(id);
  if (!found) throw notFound('bin_entry', id);
  for (const voucher of await ctx.uow.binned_vouchers.findBy('bin_entry_id', found.id)) {
    await dropHoldersOf(ctx, voucher.id);
    await ctx.uow.binned_vouchers.delete(voucher.id);
  }
  await ctx.uow.bin_entries.delete(found.id);
}
