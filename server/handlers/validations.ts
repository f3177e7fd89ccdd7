import { validate } from '../domain/validations.js';
import type { HandlersOf } from './types.js';
import { inProject } from './unit-of-work.js';

export const validationHandlers: HandlersOf<'validate-stacked-discounts'> = {
  'validate-stacked-discounts': async ({ body, context, services }) => ({
    status: 200,
    body: await inProject(services, context, (ctx) => validate(ctx, body)),
  }),
};
