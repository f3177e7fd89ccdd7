/**
 * How a module tells a feature built on it that something happened, without importing the feature (which
 * imports the module: the import cycle this avoids). The module owns the slot and calls it; hooks.ts sets the
 * feature's listener once, at import, and schema.ts imports hooks.ts, so whoever builds a store has every slot
 * set. A slot called before it is set fails rather than skip what the feature would have done.
 */
export interface ListenerSlot<Args extends unknown[]> {
  set(listener: (...args: Args) => Promise<void>): void;
  call(...args: Args): Promise<void>;
}

/** A slot for one listener; `what` names the happening in the error a slot never set gives. */
export function listenerSlot<Args extends unknown[]>(what: string): ListenerSlot<Args> {
  let listener: ((...args: Args) => Promise<void>) | undefined;
  return {
    set(given) {
      listener = given;
    },
    async call(...args) {
      if (!listener) throw new Error(`Nothing listens to ${what}: server/domain/hooks.ts sets the listener, and is imported by server/domain/schema.ts`);
      await listener(...args);
    },
  };
}
