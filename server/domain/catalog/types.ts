/** Catalog records are stored in the shape the contract returns them, with every field this server always sends. */
import type { components } from '../../../generated/openapi.js';
import { table } from '../../store/schema.js';

type Schemas = components['schemas'];
type ProductSchema = Schemas['ProductBase'];
type SkuSchema = Schemas['Sku'];

export type Product = ProductSchema & Required<Pick<ProductSchema, 'image_url' | 'created_at' | 'updated_at'>>;
export type ProductWithSkus = Schemas['Product'];
export type ProductCreate = Schemas['ProductsCreateRequestBody'];
export type ProductUpdate = Schemas['ProductsUpdateRequestBody'];
export type Sku = SkuSchema & Required<Pick<SkuSchema, 'currency' | 'image_url' | 'created_at' | 'updated_at'>>;
export type SkuCreate = Schemas['ProductsSkusCreateRequestBody'];
export type SkuUpdate = Schemas['ProductsSkusUpdateRequestBody'];
export type ProductCollection = Schemas['ProductCollection'];
export type ProductCollectionCreate = Schemas['ProductCollectionsCreateRequestBody'];
export type ProductCollectionItem = Schemas['ProductCollectionItem'];
export type ProductCollectionFilter = Schemas['ProductCollectionFilter'];

/** The `order` values every list of the catalog takes. */
export type CatalogOrder = components['parameters']['CatalogOrder'];

/** The catalog tables. */
export const PRODUCTS_TABLE = table<Product>({ unique: ['source_id', 'name'], indexed: [], kinds: { created_at: 'text', updated_at: 'text' } });
export const SKUS_TABLE = table<Sku>({ unique: ['source_id', 'sku'], indexed: ['product_id'], kinds: { created_at: 'text', updated_at: 'text' } });
export const PRODUCT_COLLECTIONS_TABLE = table<ProductCollection>({ unique: ['name'], indexed: ['type'], frozen: true, kinds: { created_at: 'text', updated_at: 'text', type: 'text' } });
