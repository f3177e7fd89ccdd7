import { assetHandlers } from './assets.js';
import { asyncActionHandlers } from './async-actions.js';
import { campaignHandlers } from './campaigns.js';
import { categoryHandlers } from './categories.js';
import { customerHandlers } from './customers.js';
import { eventHandlers } from './events.js';
import { exportHandlers } from './exports.js';
import { holdingHandlers } from './holdings.js';
import { importHandlers } from './imports.js';
import { locationHandlers } from './locations.js';
import { loyaltyHandlers } from './loyalties.js';
import { managementHandlers } from './management.js';
import { metadataSchemaHandlers } from './metadata-schemas.js';
import { oauthHandlers } from './oauth.js';
import { orderHandlers } from './orders.js';
import { productCollectionHandlers } from './product-collections.js';
import { productHandlers } from './products.js';
import { promotionStackHandlers } from './promotion-stacks.js';
import { promotionTierHandlers } from './promotion-tiers.js';
import { publicationLinkHandlers } from './publication-links.js';
import { publicationHandlers } from './publications.js';
import { qualificationHandlers } from './qualifications.js';
import { redemptionHandlers } from './redemptions.js';
import { rewardHandlers } from './rewards.js';
import { segmentHandlers } from './segments.js';
import { singleObjectHandlers } from './single-object.js';
import { skuHandlers } from './skus.js';
import { stackingRulesHandlers } from './stacking-rules.js';
import { transactionHandlers } from './transactions.js';
import { validationRuleHandlers } from './validation-rules.js';
import { validationHandlers } from './validations.js';
import { voucherHandlers } from './vouchers.js';
import { binHandlers } from './bin.js';
import { loyaltyLegacyHandlers } from './loyalty-legacy.js';
import { referralHandlers } from './referrals.js';
import { templateHandlers } from './templates.js';
import { testClockHandlers } from './test-clocks.js';
import type { Handlers } from './types.js';
import { FRESH } from '../store/fresh.js';

/** Every operation of the contract, by operationId. A missing one is a compile error here. */
export const handlers: Handlers = {
  ...FRESH,
  ...assetHandlers,
  ...asyncActionHandlers,
  ...campaignHandlers,
  ...categoryHandlers,
  ...customerHandlers,
  ...eventHandlers,
  ...exportHandlers,
  ...holdingHandlers,
  ...importHandlers,
  ...locationHandlers,
  ...loyaltyHandlers,
  ...managementHandlers,
  ...metadataSchemaHandlers,
  ...productHandlers,
  ...promotionStackHandlers,
  ...promotionTierHandlers,
  ...publicationHandlers,
  ...publicationLinkHandlers,
  ...qualificationHandlers,
  ...redemptionHandlers,
  ...rewardHandlers,
  ...segmentHandlers,
  ...singleObjectHandlers,
  ...skuHandlers,
  ...stackingRulesHandlers,
  ...transactionHandlers,
  ...oauthHandlers,
  ...orderHandlers,
  ...productCollectionHandlers,
  ...validationRuleHandlers,
  ...validationHandlers,
  ...voucherHandlers,
  ...binHandlers,
  ...loyaltyLegacyHandlers,
  ...referralHandlers,
  ...templateHandlers,
  ...testClockHandlers,
};
