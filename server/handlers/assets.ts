import { renderAsset, type AssetKind } from '../assets.js';
import { notFound } from '../domain/errors.js';
import { findVoucher } from '../domain/vouchers.js';
import type { HandlersOf, Services } from './types.js';

/** Renders the image of a voucher that still exists in the project the signed asset ID names. */
async function image(services: Services, kind: AssetKind, assetId: string): Promise<{ status: 200; body: Buffer }> {
  const target = services.assets.open(kind, assetId);
  if (!target || !(await services.store.hasProject(target.projectId))) throw notFound('asset', assetId);
  const voucher = await services.store
    .transaction(target.projectId, (uow) => findVoucher({ uow, clock: services.clock }, target.code))
    .catch(() => undefined);
  if (!voucher) throw notFound('asset', assetId);
  return { status: 200, body: await renderAsset(kind, voucher.code) };
}

export const assetHandlers: HandlersOf<'get-voucher-qr' | 'get-voucher-barcode'> = {
  'get-voucher-qr': ({ path, services }) => image(services, 'qr', path.assetId),
  'get-voucher-barcode': ({ path, services }) => image(services, 'barcode', path.assetId),
};
