/**
 * Paying `amount` with points through a COIN reward: whole steps of `points_ratio` points for
 * `exchange_ratio` of money, as many as the amount needs and `usable` points allow.
 */
export function coinPayment(coin: { exchange_ratio: number; points_ratio: number }, amount: number, usable: number): { points: number; amount: number } {
  const units = Math.max(0, Math.min(Math.ceil(amount / coin.exchange_ratio), Math.floor(usable / coin.points_ratio)));
  return { points: units * coin.points_ratio, amount: Math.min(amount, units * coin.exchange_ratio) };
}
