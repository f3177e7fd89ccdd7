/**
 * The API reference the server serves, in two forms: `/docs`, the static Redoc page that `make docs`
 * publishes, and `/docs/try`, an interactive reference (Scalar) whose try-it console calls this very server.
 * Both pages load everything from this server: the Redoc page is built self-contained, and Scalar's script is
 * served from the installed package, with its fonts, telemetry, request proxy and AI agent off.
 */
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { Router } from 'express';
import { DOCS_HTML } from '../paths.js';
import { sendError } from './errors.js';
import { nameOperation } from './request-facts.js';
import { FRESH } from '../store/fresh.js';

export interface DocsOptions {
  /** The page's title (the contract's). */
  title: string;
  /**
   * Values the try-it console starts with, by security scheme name (`X-App-Id`…). Only demo keys belong
   * here: anyone who opens the page reads them.
   */
  credentials?: Readonly<Record<string, string>>;
}

/** Scalar's self-contained browser build, or undefined when the package is not installed. */
function scalarScript(): string | undefined {
  try {
    return createRequire(import.meta.url).resolve('@scalar/api-reference/browser/standalone.js');
  } catch {
    return undefined;
  }
}

/**
 * Scalar's settings; the document and the server's URL are added in the page, from its own address. No scheme
 * is preferred (nor the document's default kept, in the page): each operation starts with the first key its
 * contract names (the server-side key for `/v1`, the client-side one for `/client/v1`, the management key for
 * `/management/v1`).
 */
function scalarConfiguration(credentials: Readonly<Record<string, string>>) {
  return {
    authentication: {
      ...FRESH,
      securitySchemes: Object.fromEntries(Object.entries(credentials).map(([name, value]) => [name, { value }])),
    },
    // Nothing from other hosts: no web fonts, no usage reports, no request proxy, no AI agent (it searches
    // Scalar's registry), no developer tools.
    withDefaultFonts: false,
    telemetry: false,
    agent: { disabled: true },
    showDeveloperTools: 'never',
    // Keys typed into the page stay in the page; they are not written to the browser's storage.
    persistAuth: false,
    documentDownloadType: 'json',
    hideModels: false,
  };
}

/** Text inside a `<script>` element: `<` escaped so that no value can close the element. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c');
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function interactivePage(options: DocsOptions): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(options.title)}: try it</title>
</head>
<body>
<div id="app"></div>
<script>
// The server's own base URL, whatever path prefix a proxy puts it under: the try-it console calls it.
const base = location.origin + location.pathname.replace(/\\/docs\\/try\\/?$/, '');
const configuration = ${scriptJson(scalarConfiguration(options.credentials ?? {}))};
const script = document.createElement('script');
script.src = base + '/docs/scalar.js';
// Client-side operations take an origin header, which the browser sets itself (to this page's origin) whatever
// the console says: the console starts with that value rather than the contract's example, which this
// server's client key does not allow.
function ownOrigin(node) {
  if (Array.isArray(node)) return node.forEach(ownOrigin);
  if (!node || typeof node !== 'object') return;
  if (node.in === 'header' && String(node.name).toLowerCase() === 'origin') {
    node.example = location.origin;
    delete node.examples;
  }
  Object.values(node).forEach(ownOrigin);
}
script.onload = async () => {
  const content = await (await fetch(base + '/openapi.json')).json();
  ownOrigin(content);
  // Scalar gives the document's default key to every operation that the reader has not set one for; every
  // operation names its own, so without the default each starts with its own first one.
  delete content.security;
  Scalar.createApiReference('#app', { ...configuration, content, servers: [{ url: base, description: 'This server' }] });
};
document.head.append(script);
</script>
</body>
</html>
`;
}

export function docsRoutes(options: DocsOptions): Router {
  const router = Router();
  const page = interactivePage(options);
  const script = scalarScript();
  router.get('/docs', nameOperation('docs'), (_req, res) => {
    if (existsSync(DOCS_HTML)) return res.sendFile(DOCS_HTML);
    return sendError(res, 404, 'not_found', 'Resource not found', 'The API reference is not built; run `make docs`');
  });
  router.get('/docs/try', nameOperation('docs'), (_req, res) => {
    if (!script) return sendError(res, 404, 'not_found', 'Resource not found', 'The interactive reference needs the @scalar/api-reference package; the static one is at /docs');
    res.type('html').send(page);
  });
  router.get('/docs/scalar.js', nameOperation('docs'), (_req, res) => {
    if (!script) return sendError(res, 404, 'not_found', 'Resource not found', 'The @scalar/api-reference package is not installed');
    res.sendFile(script, { maxAge: '1h' });
  });
  return router;
}
