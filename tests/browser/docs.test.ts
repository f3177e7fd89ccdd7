/**
 * The API reference in a real browser: Debian's chromium, driven by playwright-core, loads both pages of an
 * in-process reference server. The static page that `make docs` publishes (/docs) must reach every tag and
 * operation of the bundled contract; the interactive one (/docs/try) must call the server from its try-it
 * console with the key it was given, and show the answer. Neither may log console errors or make a single
 * request to another host.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, jest, test } from '@jest/globals';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { createApp } from '../../server/app.js';
import { systemClock } from '../../server/domain/clock.js';
import { BUNDLED_CONTRACT, DOCS_HTML, packageRoot } from '../../server/paths.js';
import { MemoryStore } from '../../server/store/memory.js';
import { SCHEMA } from '../../server/domain/schema.js';
import { listen, secret } from '../contract/target.js';

jest.setTimeout(120_000);

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SCREENSHOT = join(packageRoot(), 'dist', 'docs-screenshot.png');

interface Operation {
  operationId?: string;
  tags?: string[];
  responses?: Record<string, unknown>;
}
interface Contract {
  tags: { name: string }[];
  paths: Record<string, Record<string, Operation>>;
  webhooks: Record<string, Record<string, Operation>>;
}
const contract = JSON.parse(readFileSync(BUNDLED_CONTRACT, 'utf8')) as Contract;
// The operations, and the webhook payloads (documented as operations the receiver implements).
const operations = [...Object.values(contract.paths), ...Object.values(contract.webhooks)].flatMap((item) =>
  ['get', 'post', 'put', 'patch', 'delete'].flatMap((method) => {
    const operation = item[method];
    return operation?.operationId ? [{ operationId: operation.operationId, tag: operation.tags?.[0] ?? '' }] : [];
  }),
);

const key = { appId: `app-${secret()}`, appToken: secret() };
/** The client-side key; it allows the server's own origin, known once the server listens. */
const clientKey = { name: 'docs-client', appId: `client-${secret()}`, token: secret(), projectId: 'proj_docs', origins: [] as string[] };

const state = {} as {
  server: Server;
  baseUrl: string;
  /** A product made before the pages load, which only this server's answer can name. */
  product: { id: string; name: string };
  profile: string;
  context: BrowserContext;
  page: Page;
  consoleErrors: string[];
  outside: string[];
};

beforeAll(async () => {
  const app = await createApp({
    store: new MemoryStore(SCHEMA),
    clock: systemClock,
    apiKeys: [{ name: 'docs', ...key, projectId: 'proj_docs' }],
    validateResponses: true,
    clientKeys: [clientKey],
    docsCredentials: {
      'X-App-Id': key.appId,
      'X-App-Token': key.appToken,
      'X-Client-Application-Id': clientKey.appId,
      'X-Client-Token': clientKey.token,
    },
  });
  ({ server: state.server, baseUrl: state.baseUrl } = await listen(app));
  clientKey.origins.push(state.baseUrl);
  const made = await fetch(`${state.baseUrl}/v1/products`, {
    method: 'POST',
    headers: { 'X-App-Id': key.appId, 'X-App-Token': key.appToken, 'Content-Type': 'application/json' },
    body: JSON.stringify({ source_id: `try-it-${secret()}`, name: `Try-it beans ${secret().slice(0, 6)}` }),
  });
  expect(made.status).toBe(200);
  state.product = (await made.json()) as { id: string; name: string };
  state.profile = mkdtempSync(join(tmpdir(), 'docs-chromium-'));
  state.context = await chromium.launchPersistentContext(state.profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1400, height: 900 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  state.consoleErrors = [];
  state.outside = [];
  // Nothing may leave the server: a request elsewhere is recorded and answered empty, so an offline CI
  // and a reader behind a firewall see the same page.
  await state.context.route(
    (url) => !url.href.startsWith(state.baseUrl),
    (route) => {
      state.outside.push(route.request().url());
      return route.fulfill({ status: 204, body: '' });
    },
  );
  state.page = await state.context.newPage();
  state.page.on('console', (message) => {
    if (message.type() === 'error') state.consoleErrors.push(message.text());
  });
  state.page.on('pageerror', (error) => state.consoleErrors.push(String(error)));
  state.page.on('response', (response) => {
    if (response.status() >= 400) state.consoleErrors.push(`${response.status()} ${response.url()}`);
  });
});

afterAll(async () => {
  await state.context?.close();
  if (state.profile) rmSync(state.profile, { recursive: true, force: true });
  await new Promise((resolve) => state.server?.close(resolve));
});

beforeEach(() => {
  state.consoleErrors.length = 0;
  state.outside.length = 0;
});

describe('the static API reference at /docs in chromium', () => {
  test('when the page loads, then it shows every tag and operation of the contract, logs no errors and makes no request to another host', async () => {
    expect(readFileSync(DOCS_HTML, 'utf8').length).toBeGreaterThan(0);
    const { page } = state;
    const response = await page.goto(`${state.baseUrl}/docs`, { waitUntil: 'load' });
    expect(response?.status()).toBe(200);
    await page.waitForSelector('[data-section-id]', { timeout: 30_000 });

    const menuTexts = await page.$$eval('a[href]', (links) => links.map((link) => link.textContent?.trim() ?? ''));
    expect(contract.tags.map((tag) => tag.name).filter((name) => !menuTexts.includes(name))).toEqual([]);

    // The menu lists a tag's operations once the tag is opened; open each tag and collect the links. The menu
    // renders them a moment after the click (on a loaded machine, after the first read), so a tag's links are
    // read again until all its operations are there or 10 s have passed.
    // The page's anchors are lower case (the public API's own operationIds are not always: `list-SKUs-in-product`).
    const hrefs = new Set<string>();
    const shown = new Set<string | undefined>();
    const readLinks = async () => {
      for (const href of await page.$$eval('a[href^="#/"]', (links) => links.map((link) => link.getAttribute('href') ?? ''))) {
        const anchor = href.split('#')[1] ?? '';
        hrefs.add(anchor);
        shown.add(anchor.split('/').at(-1)?.toLowerCase());
      }
    };
    for (const tag of contract.tags) {
      const own = operations.filter((operation) => operation.tag === tag.name).map((operation) => operation.operationId.toLowerCase());
      // A click opens the tag, or closes it when the page had opened it already (it opens the tag of the section
      // in view as it scrolls): a tag still missing operations is clicked again, up to three times.
      for (let click = 0; click < 3 && own.some((operationId) => !shown.has(operationId)); click++) {
        await page.getByRole('link', { name: tag.name, exact: true }).first().click();
        const until = Date.now() + 10_000;
        await readLinks();
        while (own.some((operationId) => !shown.has(operationId)) && Date.now() < until) {
          await page.waitForTimeout(100);
          await readLinks();
        }
      }
    }
    expect(operations.filter((operation) => !shown.has(operation.operationId.toLowerCase()))).toEqual([]);

    // An operation's own section renders its request example and every response it documents, errors included.
    const sectionText = async (operationId: string) => {
      await page.goto(`${state.baseUrl}/docs#${[...hrefs].find((href) => href.endsWith(`/${operationId}`))}`);
      const section = await page.waitForSelector(`[data-section-id$="/${operationId}"]`, { timeout: 30_000 });
      return section.innerText();
    };
    const createWebhook = contract.paths['/management/v1/projects/{projectId}/webhooks']!.post!;
    const shownCreate = await sectionText('create-webhook');
    expect(Object.keys(createWebhook.responses!).filter((status) => !new RegExp(`\\b${status}\\b`).test(shownCreate))).toEqual([]);
    expect(shownCreate).toContain('hooks.coffee.example.com');
    // The webhook payload is shown with its fields.
    const shownEvent = await sectionText('receive-event');
    expect(shownEvent).toMatch(/project_id/);
    expect(shownEvent).toMatch(/X-Webhook-Signature/i);

    await page.goto(`${state.baseUrl}/docs`, { waitUntil: 'load' });
    await page.waitForSelector('[data-section-id]', { timeout: 30_000 });
    mkdirSync(join(packageRoot(), 'dist'), { recursive: true });
    await page.screenshot({ path: SCREENSHOT });

    expect(state.consoleErrors).toEqual([]);
    expect(state.outside).toEqual([]);
  });
});

describe('the interactive API reference at /docs/try in chromium', () => {
  test('when a reader sends an operation from its try-it console, then the page calls this server with the key it was given and shows the answer', async () => {
    const { page } = state;
    const response = await page.goto(`${state.baseUrl}/docs/try#tag/products/GET/v1/products`, { waitUntil: 'load' });
    expect(response?.status()).toBe(200);
    const section = page.locator('[id$="tag/products/GET/v1/products"]').first();
    await section.waitFor({ timeout: 30_000 });
    await section.getByRole('button', { name: /Test Request/ }).first().click();

    const called = page.waitForResponse((answer) => new URL(answer.url()).pathname === '/v1/products' && answer.request().method() === 'GET', { timeout: 30_000 });
    await page.getByRole('button', { name: /^Send\b/ }).first().click();
    const answer = await called;
    expect(answer.url().startsWith(`${state.baseUrl}/v1/products`)).toBe(true);
    expect(answer.status()).toBe(200);
    const sent = answer.request().headers();
    expect([sent['x-app-id'], sent['x-app-token']]).toEqual([key.appId, key.appToken]);
    // The console shows the server's answer: the status, and the product made for this test.
    await page.getByText('200 OK').first().waitFor({ timeout: 30_000 });
    await page.getByText(state.product.id).first().waitFor({ timeout: 30_000 });
    expect(await page.locator('body').innerText()).toContain(state.product.name);

    expect(state.consoleErrors).toEqual([]);
    expect(state.outside).toEqual([]);
  });

  test('when a reader sends a client-side operation, then the page sends the client-side key and its own origin, and the server answers', async () => {
    const { page } = state;
    await page.goto('about:blank');
    await page.goto(`${state.baseUrl}/docs/try#tag/client-side/POST/client/v1/qualifications`, { waitUntil: 'load' });
    const section = page.locator('[id$="tag/client-side/POST/client/v1/qualifications"]').first();
    await section.waitFor({ timeout: 30_000 });
    await section.getByRole('button', { name: /Test Request/ }).first().click();
    // The console starts with the page's own origin, not the contract's example.
    expect(await page.locator('body').innerText()).not.toContain('https://shop.example.com');

    const called = page.waitForResponse((answer) => new URL(answer.url()).pathname === '/client/v1/qualifications', { timeout: 30_000 });
    await page.getByRole('button', { name: /^Send\b/ }).first().click();
    const answer = await called;
    const sent = answer.request().headers();
    expect([sent['x-client-application-id'], sent['x-client-token'], sent['x-app-id'], sent.origin]).toEqual([clientKey.appId, clientKey.token, undefined, state.baseUrl]);
    expect(answer.status()).toBe(200);
    expect(state.consoleErrors).toEqual([]);
  });
});
