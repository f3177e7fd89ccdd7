/**
 * The static API reference (`make docs`, dist/docs/index.html) before its script runs: Redoc renders the sidebar
 * into the page as links to host paths (`/vouchers`), which led to 404s on the reference server and on any static
 * host until the script replaced them. `make docs` writes them as the in-page routes the script itself uses
 * (`#/vouchers`, as docs.test.ts sees once it has run). Needs the docs page first (make test makes it).
 */
import { describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { DOCS_HTML } from '../../server/paths.js';

describe('the static API reference before its script runs', () => {
  test('when its links are read, then each points into the page or at another site, never at a path of the host', () => {
    const page = readFileSync(DOCS_HTML, 'utf8');
    const links = [...page.matchAll(/<a [^>]*href="([^"]*)"/g)].map((match) => match[1]!);
    // The sidebar: the sections of the description, every tag.
    const inPage = links.filter((href) => href.startsWith('#/'));
    expect(inPage.length).toBeGreaterThan(30);
    expect(inPage).toEqual(expect.arrayContaining(['#/', '#/section/authentication', '#/vouchers']));
    expect(links.filter((href) => !/^(#|https?:\/\/|mailto:|data:)/.test(href))).toEqual([]);
  });
});
