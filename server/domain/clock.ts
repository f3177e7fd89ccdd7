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

/** The end of a timestamp for each millisecond of a second: `000Z` to `999Z`. */
const MILLISECONDS_TEXT = Array.from({ length: 1000 }, (_, ms) => `${String(ms).padStart(3, '0')}Z`);

/** The second (ms since the epoch / 1000, rounded down) that `isoTime` formatted last, and its text up to the ms. */
let lastSecond = Number.NaN;
let lastPrefix = '';

/**
 * `date.toISOString()`, the form of every timestamp the server writes. Date's own formatting took a few µs a
 * call in the running server (a C++ call that `make bench`'s profiles put at 3 to 4 µs of each validation,
 * for its one event's timestamp), so the text up to the milliseconds is kept for the last second formatted and
 * a moment within that second only adds its milliseconds. Another second is formatted by Date, so years
 * beyond 9999, before 1970 and invalid dates (a RangeError) come out exactly as Date makes them.
 */
export function isoTime(date: Date): string {
  const ms = date.getTime();
  const second = Math.floor(ms / 1000);
  if (second !== lastSecond) {
    const text = date.toISOString();
    lastSecond = second;
    lastPrefix = text.slice(0, -4);
    return text;
  }
  // One flat string, as Date writes it (adding the pieces makes a chain of strings, larger in every row that keeps it).
  return [lastPrefix, MILLISECONDS_TEXT[ms - second * 1000]].join('');
}

/** The clock's time now, as the server writes timestamps. */
export function isoNow(clock: Clock): string {
  return isoTime(clock.now());
}
