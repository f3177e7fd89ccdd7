import { expect } from '@jest/globals';

/**
 * The contract requires little of a response (only what every implementation always sends), so most fields
 * are optional in the generated types. A scenario that goes on to use a field first checks it is there:
 * this asserts that each named field is present (not undefined) and gives the value back typed so.
 */
export function known<T extends object, K extends keyof T>(value: T | undefined, ...keys: K[]): T & { [P in K]-?: Exclude<T[P], undefined> } {
  expect(value).toBeDefined();
  for (const key of keys) expect({ [key]: (value as T)[key] }).toEqual({ [key]: expect.anything() });
  return value as T & { [P in K]-?: Exclude<T[P], undefined> };
}
