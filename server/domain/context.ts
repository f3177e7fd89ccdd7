import type { components } from '../../generated/openapi.js';
import type { DomainUnitOfWork } from './schema.js';
import type { Clock } from './clock.js';

export type EventSource = components['schemas']['EventSource'];

/** What a use case works with: one project's unit of work and the clock, and who is calling. */
export interface DomainContext {
  uow: DomainUnitOfWork;
  clock: Clock;
  /** Who caused what this unit of work records; the service itself when absent. */
  source?: EventSource;
  /** The caller's `X-Voucherify-Channel` header, which card transactions it causes record as their `source`. */
  channel?: string;
  /** Groups the events one unit of work records. */
  groupId?: string;
}
