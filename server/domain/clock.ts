/** The engine never reads the system time directly, so tests and fixtures can move it. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock that stands still until told to move. */
export class ManualClock implements Clock {
  constructor(private current: Date = new Date()) {}
  now(): Date {
    return new Date(this.current.getTime());
  }
  set(to: Date): void {
    this.current = new Date(to.getTime());
  }
  advance(milliseconds: number): void {
    this.current = new Date(this.current.getTime() + milliseconds);
  }
}

/** Real time shifted by an offset that tests can move, so time still passes but can jump. */
export class OffsetClock implements Clock {
  private offset = 0;
  now(): Date {
    return new Date(Date.now() + this.offset);
  }
  /** From now on, `now()` starts at `moment` and runs on from there. */
  travelTo(moment: Date): void {
    this.offset = moment.getTime() - Date.now();
  }
  reset(): void {
    this.offset = 0;
  }
}
