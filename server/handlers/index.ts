import { categoryHandlers } from './categories.js';
import { customerHandlers } from './customers.js';
import { productCollectionHandlers } from './product-collections.js';
import { productHandlers } from './products.js';
import { skuHandlers } from './skus.js';
import type { Handlers } from './types.js';

/** Every operation of the contract, by operationId. A missing one is a compile error here. */
export const handlers: Handlers = {
  ...categoryHandlers,
  ...customerHandlers,
  ...productHandlers,
  ...skuHandlers,
  ...productCollectionHandlers,
};
