import type { Session } from '../sql/driver.js';

/** A versioned step of the SQL store's layout, run once per database, in name order, inside one transaction. */
export interface Migration {
  /** Its version: recorded once run, so never renamed. */
  readonly name: string;
  up(sql: Session): Promise<void>;
}
