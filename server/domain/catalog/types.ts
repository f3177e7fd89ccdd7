/** Catalog records are stored in the shape the contract returns them. */
import type { components } from '../../../generated/openapi.js';

type Schemas = components['schemas'];

export type Product = Schemas['Product'];
export type ProductCreate = Schemas['ProductsCreateRequestBody'];
export type ProductUpdate = Schemas['ProductsUpdateRequestBody'];
export type Sku = Schemas['Sku'];
export type SkuCreate = Schemas['ProductsSkusCreateRequestBody'];
export type SkuUpdate = Schemas['ProductsSkusUpdateRequestBody'];
export type ProductCollection = Schemas['ProductCollection'];
export type ProductCollectionCreate = Schemas['ProductCollectionsCreateRequestBody'];
export type ProductCollectionItem = Schemas['ProductCollectionItem'];
export type ProductCollectionFilter = Schemas['ProductCollectionFilter'];
