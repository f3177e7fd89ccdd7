/** The tracking ID of a known customer, the same for each of their requests; engine.ts and publications.ts both give it. */
export function trackingIdOf(customerId: string): string {
  return `track_${Buffer.from(customerId).toString('base64url')}`;
}
