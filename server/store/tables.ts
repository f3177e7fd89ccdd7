/** The tables of a project's partition, their row types and their unique and secondary indexes. */
import type { Product, ProductCollection, Sku } from '../domain/catalog/types.js';
import type { Category } from '../domain/categories.js';
import type { Customer } from '../domain/customers.js';

export interface Tables {
  categories: Category;
  customers: Customer;
  products: Product;
  skus: Sku;
  product_collections: ProductCollection;
}

export interface TableSpec {
  /** Fields whose non-null values are unique within the project. */
  unique: readonly string[];
  /** Fields looked up with findBy. */
  indexed: readonly string[];
}

export const TABLE_SPECS: { readonly [K in keyof Tables]: TableSpec } = {
  categories: { unique: ['name'], indexed: [] },
  customers: { unique: ['source_id'], indexed: [] },
  products: { unique: ['source_id', 'name'], indexed: [] },
  skus: { unique: ['source_id', 'sku'], indexed: ['product_id'] },
  product_collections: { unique: ['name'], indexed: ['type'] },
};
