/** A project's brand configuration: at most one per project, with cockpit settings that have defaults. */
import type { components } from '../../../generated/openapi.js';
import type { DomainContext } from '../context.js';
import { DomainError, notFound } from '../errors.js';
import { newId } from '../ids.js';
import { table } from '../../store/schema.js';
import { FRESH } from '../../store/fresh.js';
import { isoNow } from '../clock.js';

/** A stored brand: every one has its cockpits and both timestamps (the contract leaves them optional, as the public API documents brands without them). */
export type Brand = components['schemas']['Brand'] & Required<Pick<components['schemas']['Brand'], 'cockpits' | 'created_at' | 'updated_at'>>;

export const BRANDS_TABLE = table<Brand>({ unique: [], indexed: [] });
type BrandCreate = components['schemas']['BrandingCreateRequestBody'];
type BrandUpdate = components['schemas']['BrandingUpdateRequestBody'];
type Fields = components['schemas']['BrandFields'];
type Address = components['schemas']['BrandAddress'];
type Contact = components['schemas']['BrandContact'];

const DEFAULT_COCKPITS: Brand['cockpits'] = {
  campaigns_overview_enabled: false,
  loyalty_enabled: false,
  gift_cards_enabled: false,
  coupons_enabled: false,
  referrals_enabled: false,
  theme: 'default',
  use_custom_double_opt_in_redirect_url: false,
  custom_double_opt_in_redirect_url: null,
};

/** The given fields over the current ones, leaving out what was not given. */
function merge<T extends object>(current: T, changes: Partial<T> | undefined): T {
  if (!changes) return current;
  return { ...FRESH, ...current, ...Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined)) };
}

export async function findBrand({ uow }: DomainContext, id: string): Promise<Brand> {
  const brand = await uow.brands.get(id);
  if (!brand) throw notFound('brand', id);
  return brand;
}

export async function listBrands({ uow }: DomainContext): Promise<Brand[]> {
  return (await uow.brands.query({})).rows;
}

export async function createBrand(ctx: DomainContext, input: BrandCreate): Promise<Brand> {
  const [existing] = await listBrands(ctx);
  if (existing) {
    throw new DomainError('duplicate', 'duplicate_found', 'Duplicated resource found', `The project already has brand configuration ${existing.id}`, existing.id, 'brand');
  }
  const brand: Brand = {
    id: newId('brd'),
    brand: merge<Fields>({ name: input.brand.name, privacy_policy_url: null, terms_of_use_url: null, permission_reminder: null, website_url: null }, input.brand),
    address: merge<Address>({ street: null, city: null, postal: null, state: null, country: null }, input.address),
    contact: merge<Contact>({ email: null, phone: null }, input.contact),
    cockpits: merge(DEFAULT_COCKPITS, input.cockpits),
    created_at: isoNow(ctx.clock),
    updated_at: null,
  };
  return ctx.uow.brands.insert(brand);
}

export async function updateBrand(ctx: DomainContext, id: string, input: BrandUpdate): Promise<Brand> {
  const brand = await findBrand(ctx, id);
  return ctx.uow.brands.update({
    ...FRESH,
    ...brand,
    brand: merge(brand.brand, input.brand),
    address: merge(brand.address, input.address),
    contact: merge(brand.contact, input.contact),
    cockpits: merge(brand.cockpits, input.cockpits),
    updated_at: isoNow(ctx.clock),
  });
}

export async function deleteBrand(ctx: DomainContext, id: string): Promise<void> {
  await findBrand(ctx, id);
  await ctx.uow.brands.delete(id);
}
