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

/** The server-side key, which most operations take: the console starts with it when the page knows it. */
const SERVER_SIDE_KEY = ['X-App-Id', 'X-App-Token'];

/** Scalar's settings; the document's URL and the server's are added in the page, from its own address. */
function scalarConfiguration(credentials: Readonly<Record<string, string>>) {
  const serverSide = SERVER_SIDE_KEY.every((name) => credentials[name] !== undefined);
  return {
    authentication: {
      ...FRESH,
      ...(serverSide && { preferredSecurityScheme: [SERVER_SIDE_KEY] }),
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
script.onload = () => Scalar.createApiReference('#app', {
  ...configuration,
  url: base + '/openapi.json',
  servers: [{ url: base, description: 'This server' }],
});
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
