/**
 * express-openapi-validator 5.6.2 (the newest stable release) finds the operation of each request by walking
 * every route of the contract and compiling a path-to-regexp pattern for each until one matches
 * (`lookupRoute` in its openapi.metadata middleware). With the contract's ~170 paths that compiling was most
 * of the time a cheap request took (`make bench`: a campaign's page of 10 vouchers went from 383 to 935
 * requests a second with this cache). Patterns and their options are fixed, so the compiled result is kept; the
 * returned regular expressions carry no state between matches (no `g` or `y` flag), so sharing them is safe.
 * It patches the path-to-regexp module instance the validator itself loads, once, and only for string
 * patterns with scalar options; anything else is compiled as before.
 */
import { createRequire } from 'node:module';

type Compile = (path: unknown, options?: Record<string, unknown>) => unknown;

let installed = false;

export function cacheValidatorRouteLookup(): void {
  if (installed) return;
  installed = true;
  const fromValidator = createRequire(createRequire(import.meta.url).resolve('express-openapi-validator'));
  const pathToRegexp = fromValidator('path-to-regexp') as { pathToRegexp: Compile };
  const compile = pathToRegexp.pathToRegexp;
  const compiled = new Map<string, unknown>();
  pathToRegexp.pathToRegexp = (path, options) => {
    if (typeof path !== 'string') return compile(path, options);
    // The key is built by hand: this runs for every route on every request, so it must cost less than JSON.
    let key = path;
    for (const name in options) {
      const value = options[name];
      if (value !== undefined && typeof value === 'object') return compile(path, options);
      key += `\u0000${name}=${String(value)}`;
    }
    let result = compiled.get(key);
    if (result === undefined) compiled.set(key, (result = compile(path, options)));
    return result;
  };
}
