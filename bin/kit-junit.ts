/**
 * The kit's JUnit XML. jest-junit writes it as the suite runs, with a bare `<skipped/>` for each skipped
 * test; the kit then gives every skip its reason (`<skipped message="…"/>`) and marks as skipped the
 * scenarios that ended through `skip()`, which jest counts as passed, so a CI page says why a check did not
 * run and which flag would run it. When the preflight stops a run, the file holds that failure instead.
 */
import { basename } from 'node:path';
import type { SkippedScenario } from './kit-report.js';

/** Each test file's suite is named this, then the file's name. */
export const SUITE_PREFIX = 'contract kit: ';

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };
const escapeXml = (text: string) => text.replace(/[&<>"']/g, (char) => ENTITIES[char]!);
const unescapeXml = (text: string) => text.replace(/&(amp|lt|gt|quot|apos);/g, (entity) => Object.keys(ENTITIES).find((char) => ENTITIES[char] === entity)!);

/** jest-junit's file with a reason on every `<skipped>`, and each suite's `skipped` count to match. */
export function annotateJUnit(xml: string, skipped: SkippedScenario[]): string {
  const reasons = new Map(skipped.filter((entry) => !entry.part).map((entry) => [`${basename(entry.file)}\n${entry.name}`, entry.reason]));
  return xml.replace(/(<testsuite name="([^"]*)"[^>]*>)([\s\S]*?)(<\/testsuite>)/g, (_suite, open: string, name: string, body: string, close: string) => {
    const file = unescapeXml(name).slice(SUITE_PREFIX.length);
    let count = 0;
    const cases = body.replace(
      /(<testcase classname="([^"]*)" name="([^"]*)"[^>]*>)([\s\S]*?)(<\/testcase>)/g,
      (whole, start: string, classname: string, title: string, inner: string, end: string) => {
        const reason = reasons.get(`${file}\n${[unescapeXml(classname), unescapeXml(title)].filter(Boolean).join(' ')}`);
        const tag = `<skipped message="${escapeXml(reason ?? 'no reason was recorded')}"/>`;
        if (inner.includes('<skipped/>')) {
          count += 1;
          return `${start}${inner.replace('<skipped/>', tag)}${end}`;
        }
        if (inner.trim() === '' && reason !== undefined) {
          count += 1;
          return `${start}\n      ${tag}\n    ${end}`;
        }
        if (inner.includes('<skipped')) count += 1;
        return whole;
      },
    );
    return `${open.replace(/ skipped="\d+"/, ` skipped="${count}"`)}${cases}${close}`;
  });
}

/** The JUnit of a run the preflight stopped: one failed case holding what it found. */
export function preflightJUnit(problems: string[], when: Date): string {
  const timestamp = when.toISOString().slice(0, 19);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<testsuites name="contract kit" tests="1" failures="1" errors="0" time="0">',
    `  <testsuite name="${SUITE_PREFIX}preflight" errors="0" failures="1" skipped="0" timestamp="${timestamp}" time="0" tests="1">`,
    '    <testcase classname="preflight" name="the target answers as this API, takes the keys given and holds the contract fixtures" time="0">',
    `      <failure message="${escapeXml(problems[0] ?? '')}">${escapeXml(problems.join('\n\n'))}</failure>`,
    '    </testcase>',
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
