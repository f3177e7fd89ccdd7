import { trackCustomEvent } from '../domain/custom-events.js';
import type { HandlersOf } from './types.js';
import { inProject } from './unit-of-work.js';
import { qualificationHandlers } from './qualifications.js';
import { promotionTierHandlers } from './promotion-tiers.js';
import { redemptionHandlers } from './redemptions.js';
import { validationHandlers } from './validations.js';

type ClientOperations =
  | 'track-custom-event'
  | 'track-custom-event-client-side'
  | 'validate-stacked-discounts-client-side'
  | 'redeem-stacked-discounts-client-side'
  | 'check-eligibility-client-side'
  | 'list-promotion-tiers-client-side';

/** Custom events, and the client-side twins, which share the server-side handlers and engine. */
export const eventHandlers: HandlersOf<ClientOperations> = {
  'track-custom-event': async ({ body, context, services }) => ({ status: 200, body: await inProject(services, context, (ctx) => trackCustomEvent(ctx, body)) }),
  'track-custom-event-client-side': async ({ body, context, services }) => ({ status: 200, body: await inProject(services, context, (ctx) => trackCustomEvent(ctx, body)) }),
  'validate-stacked-discounts-client-side': (input) => validationHandlers['validate-stacked-discounts']({ ...input }),
  'redeem-stacked-discounts-client-side': (input) => redemptionHandlers['redeem-stacked-discounts']({ ...input }),
  'check-eligibility-client-side': (input) => qualificationHandlers['check-eligibility']({ ...input }),
  'list-promotion-tiers-client-side': (input) => promotionTierHandlers['list-promotion-tiers']({ ...input }),
};
