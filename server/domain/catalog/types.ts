/** Catalog records are stored in the shape the contract returns them, with every field this server always sends. */
import type { components } from '../../../generated/openapi.js';

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
