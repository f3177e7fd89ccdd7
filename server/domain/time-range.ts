/** `before`/`after` bounds on a timestamp, as the list filters take them; both are exclusive. */
export interface TimeRange {
  before?: string;
  after?: string;
}

/** A bound of a range: a bare date means midnight UTC. */
export function instant(value: string): number {
  return Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value);
}

export function withinRange(value: string | null | undefined, range: TimeRange | undefined): boolean {
  if (!range || (range.before === undefined && range.after === undefined)) return true;
  if (!value) return false;
  const at = Date.parse(value);
  return (range.before === undefined || at < instant(range.before)) && (range.after === undefined || at > instant(range.after));
}
