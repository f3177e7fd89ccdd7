import type { UnitOfWork } from '../store/store.js';
import type { Clock } from './clock.js';

/** What a use case works with: one project's unit of work and the clock. */
export interface DomainContext {
  uow: UnitOfWork;
  clock: Clock;
}
