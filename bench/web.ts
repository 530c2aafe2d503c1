/**
 * `npm run bench:web`: what a participant's browser downloads before each route's first screen.
 * Builds the SPA, serves `dist/client` on loopback (the SPA fallback as the Worker's assets
 * serve it; API calls answer 503, so no screen waits on data), opens every route in Debian's
 * Chromium and records each script, stylesheet and the HTML it fetched, with its gzip size.
 * In the same run it builds bench/web-floor/ (React, ReactDOM, react-router and i18next used as the
 * SPA uses them, without the app) as the floor `/` cannot go below. Writes bench/results/web.json.
 * The goal (issue #45): at most 110 KB of gzip JavaScript for `/`.
 */
import { readFileSync, readdirSync, existsSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import react from '@vitejs/plugin-react';
import { chromium } from 'playwright-core';
import { build } from 'vite';
import { CHROMIUM_PATH, CHROMIUM_FLAGS, ensureChromium } from '../scripts/lib/chromium';
import { buildSpa } from '../ml-assets/lib/wrangler';
import { projectRoot } from '../ml-assets/lib/paths';
import { writeBenchResult } from './lib/results';

const ROUTES = [
  '/',
  '/introduction',
  '/experiment/selection',
  '/experiment/consent',
  '/experiment/pre',
  '/experiment/main',
  '/experiment/post-survey',
  '/experiment/complete',
  '/resume',
  '/status',
  '/error-test',
  '/no-such-page',
];
const GOAL_ENTRY_JS_GZIP = 110 * 1024;
const dist = path.join(projectRoot, 'dist', 'client');

const TYPES: Record<string, string> = { '.js': 'text/javascript', '.css': 'text/css', '.html': 'text/html', '.svg': 'image/svg+xml', '.json': 'application/json' };

ensureChromium();
await buildSpa({ stdio: 'inherit' });
const floorJsGzip = await buildFloor();

const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://localhost');
  if (url.pathname.startsWith('/api/')) {
    res.writeHead(503, { 'Content-Type': 'application/json' }).end('{"detail":"benchmark: no API"}');
    return;
  }
  let file = path.join(dist, path.normalize(url.pathname));
  if (!file.startsWith(dist) || !existsSync(file) || statSync(file).isDirectory()) file = path.join(dist, 'index.html');
  res.writeHead(200, { 'Content-Type': TYPES[path.extname(file)] ?? 'application/octet-stream' }).end(readFileSync(file));
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const address = server.address();
const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;

const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_FLAGS });
type Download = { url: string; type: string; bytes: number; gzip: number };
const results: { route: string; js_gzip_bytes: number; css_gzip_bytes: number; html_gzip_bytes: number; total_gzip_bytes: number; files: Download[] }[] = [];
try {
  for (const route of ROUTES) {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    const downloads: Download[] = [];
    page.on('response', async (response) => {
      const type = response.request().resourceType();
      if (!['script', 'stylesheet', 'document'].includes(type)) return;
      const body = await response.body().catch(() => null);
      if (body) downloads.push({ url: new URL(response.url()).pathname, type, bytes: body.length, gzip: gzipSync(body).length });
    });
    await page.goto(base + route, { waitUntil: 'networkidle' });
    await page.locator('main h1').first().waitFor({ timeout: 10_000 }).catch(() => undefined);
    await context.close();
    const sum = (type: string) => downloads.filter((d) => d.type === type).reduce((s, d) => s + d.gzip, 0);
    const entry = { route, js_gzip_bytes: sum('script'), css_gzip_bytes: sum('stylesheet'), html_gzip_bytes: sum('document'), total_gzip_bytes: 0, files: downloads };
    entry.total_gzip_bytes = entry.js_gzip_bytes + entry.css_gzip_bytes + entry.html_gzip_bytes;
    results.push(entry);
    console.log(`${route.padEnd(24)} JS ${(entry.js_gzip_bytes / 1024).toFixed(1)} KB gzip · total ${(entry.total_gzip_bytes / 1024).toFixed(1)} KB`);
  }
} finally {
  await browser.close();
  server.close();
}

const entryJs = results.find((r) => r.route === '/')!.js_gzip_bytes;
const out = {
  measured_at: new Date().toISOString(),
  method: 'gzip (zlib default level) of every script, stylesheet and document Chromium fetched before network idle, per route, from a fresh context',
  goal: { route: '/', js_gzip_bytes_at_most: GOAL_ENTRY_JS_GZIP, met: entryJs <= GOAL_ENTRY_JS_GZIP },
  floor: {
    what: 'bench/web-floor: React, ReactDOM, react-router (declarative routes) and i18next with react-i18next, used as the SPA uses them, built by the same Vite in this run',
    js_gzip_bytes: floorJsGzip,
    app_share_of_entry_js_gzip_bytes: entryJs - floorJsGzip,
  },
  routes: results,
};
writeBenchResult('web', out);
console.log(`\n/ loads ${(entryJs / 1024).toFixed(1)} KB of gzip JavaScript (goal ≤ ${GOAL_ENTRY_JS_GZIP / 1024} KB): ${out.goal.met ? 'met' : 'NOT met'}`);
console.log(`floor (the fixed libraries alone): ${(floorJsGzip / 1024).toFixed(1)} KB; the app's own share of /: ${((entryJs - floorJsGzip) / 1024).toFixed(1)} KB`);

/** The floor's JavaScript, gzipped file by file as the routes' downloads are (it has no lazy chunk: all of it loads). */
async function buildFloor(): Promise<number> {
  const outDir = path.join(projectRoot, 'dist', 'bench-floor');
  await build({ configFile: false, root: path.join(projectRoot, 'bench', 'web-floor'), logLevel: 'warn', plugins: [react()], build: { outDir, emptyOutDir: true } });
  const assets = path.join(outDir, 'assets');
  return readdirSync(assets)
    .filter((f) => f.endsWith('.js'))
    .reduce((sum, f) => sum + gzipSync(readFileSync(path.join(assets, f))).length, 0);
}
