/**
 * For `make bench` only: every handler of the app wrapped so that, while answers are kept, each operation's
 * first answer is given again instead of running its handler (no unit of work, domain or store). What a
 * request still costs then is the way in and out: Express, the contract's validation, authentication,
 * limits, logging, metrics, serialising the body. While answers are not kept, a wrapper only calls its handler.
 */
export type AnyHandler = (input: unknown) => unknown;

/**
 * Wraps the table's handlers in place and returns the switch. A first answer that fails is not kept (the next
 * request runs the handler again). Switching, either way, forgets the answers kept so far. Call before the
 * app is made: the app takes its handlers from the table when it is made.
 */
export function keepAnswersOf(table: Record<string, AnyHandler>): (kept: boolean) => void {
  let keeping = false;
  const kept = new Map<string, Promise<unknown>>();
  for (const [operation, handler] of Object.entries(table)) {
    table[operation] = (input) => {
      if (!keeping) return handler(input);
      let answer = kept.get(operation);
      if (answer === undefined) {
        answer = Promise.resolve(handler(input));
        kept.set(operation, answer);
        answer.catch(() => {
          if (kept.get(operation) === answer) kept.delete(operation);
        });
      }
      return answer;
    };
  }
  return (on) => {
    keeping = on;
    kept.clear();
  };
}
