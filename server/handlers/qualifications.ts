import { checkEligibility } from '../domain/qualifications.js';
import type { HandlersOf } from './types.js';
import { inProject } from './unit-of-work.js';

export const qualificationHandlers: HandlersOf<'check-eligibility'> = {
  'check-eligibility': async ({ body, context, services }) => ({
    status: 200,
    body: await inProject(services, context, (ctx) => checkEligibility(ctx, body)),
  }),
};
