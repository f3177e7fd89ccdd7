/** Test clocks, an extension of the reference server: answered only when the server has them on. */
import { advanceTestClock, freezeTestClock, getTestClock, releaseTestClock } from '../domain/test-clock.js';
import { HttpError } from '../http/errors.js';
import { FRESH } from '../store/fresh.js';
import type { HandlersOf, Services } from './types.js';
import { inProject } from './unit-of-work.js';

type TestClockOperations = 'get-test-clock' | 'freeze-test-clock' | 'advance-test-clock' | 'release-test-clock';

/** Off, the operations are not there: the interface's 404, with details that say how to turn them on. */
function requireTestClocks(services: Services): void {
  if (!services.testClocks) throw new HttpError(404, 'not_found', 'Resource not found', 'Test clocks are off on this server: start it with TEST_CLOCKS=1 to use them');
}

export const testClockHandlers: HandlersOf<TestClockOperations> = {
  'get-test-clock': async ({ context, services }) => {
    requireTestClocks(services);
    return { status: 200, body: await inProject(services, context, getTestClock) };
  },
  'freeze-test-clock': async ({ body, context, services }) => {
    requireTestClocks(services);
    return { status: 200, body: await inProject(services, context, (ctx) => freezeTestClock(ctx, { ...(body?.time !== undefined && { time: body.time }) })) };
  },
  'advance-test-clock': async ({ body, context, services }) => {
    requireTestClocks(services);
    const input = { ...FRESH, ...(body.time !== undefined && { time: body.time }), ...(body.by !== undefined && { by: body.by }) };
    return { status: 200, body: await inProject(services, context, (ctx) => advanceTestClock(ctx, input)) };
  },
  'release-test-clock': async ({ context, services }) => {
    requireTestClocks(services);
    return { status: 200, body: await inProject(services, context, (ctx) => releaseTestClock(ctx, services.clock)) };
  },
};
