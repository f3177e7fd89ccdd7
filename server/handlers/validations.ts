import { validate } from '../domain/validations.js';
import type { HandlersOf } from './types.js';
import { inProject } from './unit-of-work.js';

export const validationHandlers: HandlersOf<'validate-stacked-discounts'> = {
  'validate-stacked-discounts': async ({ body, context, services }) => ({
    status: 200,
    // Optimistic: a validation records events and the session's holds, and the engine locks each voucher it
    // names (getBy forUpdate), so that holds of one voucher are taken one after another.
    body: await inProject(services, context, (ctx) => validate(ctx, body), { optimistic: true }),
  }),
};
