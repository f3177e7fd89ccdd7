// The first place where what a failed assertion received differs from what it expected, for the kit's console
// and its report: `at body.data[2].status: expected 200, received 429` says more than jest's header line
// (`expect(received).toEqual(expected)`), whose diff only the JSON and JUnit reports carried.

/** An asymmetric matcher (expect.any, expect.stringMatching…), also after a worker serialized it. */
function isMatcher(value) {
  if (typeof value !== 'object' || value === null) return false;
  if (typeof value.asymmetricMatch === 'function' || typeof value.$$typeof === 'symbol') return true;
  // Serialized, a matcher keeps only its data: `inverse`, and `sample` where that is not a function.
  return typeof value.inverse === 'boolean' && Object.keys(value).every((key) => ['inverse', 'sample', '$$typeof'].includes(key));
}

const isPlainObject = (value) => typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);

/** A path step: `.name` for identifiers, `["odd name"]` otherwise, `[3]` for array members. */
function step(path, key) {
  if (typeof key === 'number') return `${path}[${key}]`;
  return /^[A-Za-z_$][\w$]*$/.test(key) ? (path ? `${path}.${key}` : key) : `${path}[${JSON.stringify(key)}]`;
}

/** A value on one line, at most `max` characters. */
function shown(value, max = 120) {
  let text;
  if (value === undefined) text = 'undefined';
  else if (isMatcher(value)) text = typeof value.toString === 'function' && value.toString !== Object.prototype.toString ? String(value) : 'a matcher';
  else {
    try {
      text = typeof value === 'bigint' ? `${value}n` : JSON.stringify(value) ?? String(value);
    } catch {
      text = String(value);
    }
  }
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/**
 * The first path (depth first, in the expected value's key order) where `actual` differs from `expected`, or
 * undefined when none is found. `subset` compares only the keys `expected` names (toMatchObject).
 */
function firstDifference(expected, actual, subset = false, path = '') {
  if (isMatcher(expected)) return undefined;
  if (Object.is(expected, actual)) return undefined;
  if (Array.isArray(expected) && Array.isArray(actual)) {
    const common = Math.min(expected.length, actual.length);
    for (let index = 0; index < common; index += 1) {
      const found = firstDifference(expected[index], actual[index], subset, step(path, index));
      if (found) return found;
    }
    if (expected.length !== actual.length) {
      const at = step(path, common);
      return { path: at, expected: common < expected.length ? expected[common] : undefined, actual: common < actual.length ? actual[common] : undefined, lengths: [expected.length, actual.length] };
    }
    return undefined;
  }
  if (isPlainObject(expected) && isPlainObject(actual)) {
    const keys = subset ? Object.keys(expected) : [...new Set([...Object.keys(expected), ...Object.keys(actual)])];
    for (const key of keys) {
      // toEqual takes a property that is undefined as one that is absent.
      if (!subset && expected[key] === undefined && actual[key] === undefined) continue;
      if (!(key in actual) && expected[key] !== undefined) return { path: step(path, key), expected: expected[key], actual: undefined, missing: true };
      const found = firstDifference(expected[key], actual[key], subset, step(path, key));
      if (found) return found;
    }
    return undefined;
  }
  if (expected instanceof Date && actual instanceof Date && expected.getTime() === actual.getTime()) return undefined;
  return { path, expected, actual };
}

/**
 * The first changed line of the diff in a matcher's message (`- Expected`/`+ Received`, then the values printed
 * one property or member a line, two spaces a level), with the path to it; for matchers whose result carries
 * no values (toMatchObject). Before the first change every line is common to both, so members count plainly.
 */
function differenceFromDiff(message) {
  // eslint-disable-next-line no-control-regex
  const lines = String(message || '').replace(/\u001b\[[0-9;]*m/g, '').split('\n');
  const start = lines.findIndex((line) => /^\+ Received\b/.test(line));
  if (start < 0) return undefined;
  const open = [];
  // A diff cut to hunks (jest without --expand, which the kit passes) starts mid-value: the path's start is unknown.
  let cut = false;
  for (let index = start + 1; index < lines.length; index += 1) {
    const line = lines[index];
    if (line.startsWith('@@ ')) cut = true;
    if (!/^[-+ ] /.test(line)) continue;
    const marker = line[0];
    const rest = line.slice(2);
    const depth = Math.floor((rest.length - rest.trimStart().length) / 2);
    const content = rest.trim();
    if (/^[}\]]/.test(content)) continue;
    const named = /^"((?:[^"\\]|\\.)*)": (.*)$/.exec(content);
    const parent = depth > 0 ? open[depth - 1] : undefined;
    const key = named ? JSON.parse(`"${named[1]}"`) : parent?.isArray ? parent.count : undefined;
    const path = parent ? step(parent.path, key) : '';
    const value = (named ? named[2] : content).replace(/,$/, '');
    if (marker !== ' ') {
      const next = lines[index + 1] || '';
      const paired = marker === '-' && next.startsWith('+ ') && next.slice(2).trim().startsWith(named ? `"${named[1]}": ` : '');
      const other = paired ? next.slice(2).trim().replace(/^"(?:[^"\\]|\\.)*": /, '').replace(/,$/, '') : undefined;
      const expected = marker === '-' ? value : 'nothing there';
      const received = marker === '+' ? value : paired ? other : 'nothing (no such property)';
      const where = cut ? `…${path ? `.${path}`.replace(/^\.\[/, '[') : ''}` : path || '(the whole value)';
      return `first difference at ${where}: expected ${expected}, received ${received}`;
    }
    if (parent?.isArray && !named) parent.count += 1;
    if (/[{[]$/.test(value)) open[depth] = { path, isArray: value.endsWith('['), count: 0 };
  }
  return undefined;
}

/** Matchers whose expected and received values are whole values to compare, with the comparison each makes. */
const COMPARED = { toEqual: false, toStrictEqual: false, toMatchObject: true, toBe: false };

/**
 * One line for a failed assertion's details (jest's failureDetails entry), or undefined when it holds no
 * values to compare (a thrown error, a matcher that states its own values well enough).
 */
function describeDifference(detail) {
  const result = detail && typeof detail === 'object' ? detail.matcherResult : undefined;
  if (!result || result.pass) return undefined;
  if (!('expected' in result) && !('actual' in result)) return differenceFromDiff(result.message);
  if (!(result.name in COMPARED)) return undefined;
  const found = firstDifference(result.expected, result.actual, COMPARED[result.name]);
  if (!found) return undefined;
  const where = found.path || '(the whole value)';
  const lengths = found.lengths ? ` (length: expected ${found.lengths[0]}, received ${found.lengths[1]})` : '';
  const received = found.missing ? 'nothing (no such property)' : shown(found.actual);
  return `first difference at ${where}: expected ${shown(found.expected)}, received ${received}${lengths}`;
}

/** The first difference of each failure of a test case, where one can be told. */
function differencesOf(result) {
  return (result.failureDetails || []).map(describeDifference).filter(Boolean);
}

/**
 * Scenarios that jest counts as passed but that ended through the suite's `skip()` (a skip record of the
 * scenario itself, not of a part of it): the kit's summary counts them as skipped, and so must its progress.
 */
function endedBySkip(skipRecords, file, passedNames) {
  const ended = new Set(skipRecords.filter((entry) => entry.file === file && entry.scope === undefined && !entry.part).map((entry) => entry.test));
  return passedNames.filter((name) => ended.has(name)).length;
}

module.exports = { firstDifference, differenceFromDiff, describeDifference, differencesOf, endedBySkip };
