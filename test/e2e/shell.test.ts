import { describe, expect, inject, it } from 'vitest';
import en from '../../web/i18n/en.json';
import ja from '../../web/i18n/ja.json';
import adminJa from '../../web/features/admin/i18n/ja.json';
import { JAPANESE, signInAsAdmin, useBrowser } from './browser';
import { E2E_ADMIN_PASSWORD } from './global-setup';

const session = useBrowser();

/** Visible text of the page without the language toggle, whose labels are in both languages. */
async function visibleTextWithoutToggle(page: import('playwright-core').Page) {
  return page.evaluate(() => {
    const clone = document.body.cloneNode(true) as HTMLElement;
    clone.querySelectorAll('.language-toggle').forEach((el) => el.remove());
    document.body.appendChild(clone);
    clone.style.position = 'absolute';
    const text = clone.innerText;
    clone.remove();
    return text;
  });
}

describe('/status', () => {
  it('shows the database, storage and the seeded AI models ready from the live Worker', async () => {
    const page = await session.newPage();
    await page.goto(`${session.baseUrl()}/status`);
    await page.getByRole('heading', { name: ja.status.title }).waitFor();
    const database = page.locator(`[data-component="${ja.status.components.database}"] .badge`);
    const storage = page.locator(`[data-component="${ja.status.components.storage}"] .badge`);
    await expect.poll(() => database.getAttribute('data-state')).toBe('connected');
    expect(await database.getAttribute('data-tone')).toBe('green');
    expect(await storage.getAttribute('data-state')).toBe('connected');
    expect(await database.innerText()).toBe(ja.status.states.connected);
    const cache = page.locator(`[data-component="${ja.status.components.cache}"] .badge`);
    expect(await cache.getAttribute('data-tone')).toBe('grey');
    const ml = page.locator(`[data-component="${ja.status.components.mlPipeline}"] .badge`);
    expect(await ml.getAttribute('data-state')).toBe('ready');
    expect(await page.locator(`[data-component="${ja.status.datasets.compas}"] .badge`).getAttribute('data-state')).toBe('ready');
    expect(await page.locator('.environment-card code').innerText()).toBe(`${session.baseUrl()}/api/status`);
    await page.context().close();
  });
});

describe('language toggle', () => {
  it('switches every visible string to English and keeps the choice after reload', async () => {
    const page = await session.newPage();
    for (const path of ['/error-test', '/status']) {
      await page.goto(`${session.baseUrl()}${path}`);
      await page.locator('h1').first().waitFor();
      expect(JAPANESE.test(await visibleTextWithoutToggle(page))).toBe(true);
    }
    await page.getByRole('button', { name: 'English' }).click();
    await page.getByRole('heading', { name: en.status.title }).waitFor();
    await page.locator('[data-state="connected"]').first().waitFor();
    expect(await visibleTextWithoutToggle(page)).not.toMatch(JAPANESE);
    expect(await page.evaluate(() => document.documentElement.lang)).toBe('en');

    for (const [path, heading] of [
      ['/error-test', en.errors.errorTest.title],
      ['/', en.entry.title],
      ['/experiment/selection', en.selection.title],
      ['/resume', en.resume.pageTitle],
    ] as const) {
      await page.goto(`${session.baseUrl()}${path}`);
      await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
      expect(await visibleTextWithoutToggle(page)).not.toMatch(JAPANESE);
    }
    expect(await page.evaluate(() => localStorage.getItem('xai-decision-lab-language'))).toBe('en');
    await page.context().close();
  });
});

describe('/error-test', () => {
  it('in production (no debug tools) shows not found and downloads none of the tool', async () => {
    const page = await session.newPage();
    // The server's word as production gives it.
    await page.route('**/api/status/environment', (route) => route.fulfill({ json: { production: true, debug_tools: false } }));
    const scripts: Promise<string>[] = [];
    page.on('response', (r) => {
      if (r.url().endsWith('.js')) scripts.push(r.text());
    });
    await page.goto(`${session.baseUrl()}/error-test`);
    await page.getByRole('heading', { name: ja.notFound.title }).waitFor();
    await page.waitForLoadState('networkidle');
    // The picker's own markup is in its chunk alone.
    const loaded = await Promise.all(scripts);
    expect(loaded.length).toBeGreaterThan(0);
    expect(loaded.filter((text) => text.includes('error-test-page'))).toEqual([]);
    await page.context().close();
  });


  it('loads as a deep link and renders every error kind in ja and en', async () => {
    const page = await session.newPage();
    const response = await page.goto(`${session.baseUrl()}/error-test`);
    expect(response?.status()).toBe(200);
    for (const [lng, texts] of [
      ['ja', ja],
      ['en', en],
    ] as const) {
      if (lng === 'en') await page.getByText('English', { exact: true }).click();
      await page.getByRole('heading', { name: texts.errors.errorTest.title }).waitFor();
      for (const [kind, label] of Object.entries(texts.errors.errorTest.kinds)) {
        await page.getByRole('radio', { name: label }).check({ force: true });
        const display = page.locator(`.error-display[data-kind="${kind}"]`);
        const expected = texts.errors.display.kinds[kind as keyof typeof texts.errors.display.kinds];
        expect(await display.locator('.error-title').innerText()).toBe(expected.title);
        expect(await display.locator('.error-message').innerText()).toBe(expected.message);
      }
      await page.getByRole('checkbox', { name: texts.errors.errorTest.withResume }).check({ force: true });
      await page.getByRole('button', { name: texts.errors.display.retryResume }).click();
      await page.getByTestId('retried').waitFor();
      await page.getByRole('checkbox', { name: texts.errors.errorTest.withResume }).uncheck({ force: true });
      expect(await page.locator('[data-sample="network"] dd').innerText()).toBe(texts.errors.http.network);
    }
    await page.context().close();
  });

  it('asks for a participant ID before resuming by ID', async () => {
    const page = await session.newPage();
    await page.goto(`${session.baseUrl()}/error-test`);
    const dialog = new Promise<string>((resolve) =>
      page.once('dialog', (d) => {
        resolve(d.message());
        void d.dismiss();
      }),
    );
    await page.getByRole('button', { name: ja.errors.display.resumeButton, exact: true }).click();
    expect(await dialog).toBe(ja.errors.display.enterParticipantId);
    await page.getByLabel(ja.errors.display.resumeById).fill('ab-12 cd34xyz');
    expect(await page.getByLabel(ja.errors.display.resumeById).inputValue()).toBe('AB12CD34');
    await page.context().close();
  });
});

describe('API through the local Worker', () => {
  it('answers an unknown /api path with JSON 404', async () => {
    const res = await fetch(`${inject('baseUrl')}/api/unknown`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(await res.json()).toMatchObject({ code: 'not_found' });
  });

  it('answers malformed JSON with 400 and detail', async () => {
    const res = await fetch(`${inject('baseUrl')}/api/admin/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"password":',
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { detail: unknown };
    expect(typeof body.detail).toBe('string');
  });

  it('serves the SPA for deep links outside /api', async () => {
    const res = await fetch(`${inject('baseUrl')}/experiment/selection`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('<div id="root">');
  });
});

describe('security headers of the pages', () => {
  it('loads the admin pages with no Content-Security-Policy violation (the validation library does not probe for eval)', async () => {
    const page = await session.newPage({ width: 1280, height: 800 });
    const violations: string[] = [];
    page.on('console', (m) => {
      if (/Content.Security.Policy|unsafe-eval/i.test(m.text())) violations.push(m.text());
    });
    await page.exposeFunction('__cspViolation', (v: string) => violations.push(v));
    await page.addInitScript(() =>
      document.addEventListener('securitypolicyviolation', (e) => (window as unknown as { __cspViolation: (v: string) => void }).__cspViolation(`${e.violatedDirective} ${e.blockedURI}`)),
    );
    await signInAsAdmin(page, `${inject('baseUrl')}/admin`, E2E_ADMIN_PASSWORD, adminJa.auth.title, adminJa.auth.password);
    await page.getByTestId('include-synthetic').waitFor();
    // Something parsed with zod: the reliance tab's figures and the model verification page.
    await page.getByRole('tab', { name: adminJa.dashboard.tabs.reliance }).click();
    await page.getByTestId('reliance-counts').waitFor();
    await page.goto(`${inject('baseUrl')}/model-verification`);
    await page.getByTestId('dataset-select').waitFor();
    expect(violations).toEqual([]);
    await page.context().close();
  });

  it('serve every page and file with a CSP that forbids framing, nosniff and HSTS, and publish no source maps', async () => {
    for (const path of ['/', '/experiment/consent', '/experiment/main', '/favicon.svg']) {
      const res = await fetch(`${inject('baseUrl')}${path}`);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('Content-Security-Policy'), path).toContain("frame-ancestors 'none'");
      expect(res.headers.get('Content-Security-Policy'), path).toContain("script-src 'self'");
      expect(res.headers.get('X-Frame-Options'), path).toBe('DENY');
      expect(res.headers.get('X-Content-Type-Options'), path).toBe('nosniff');
      expect(res.headers.get('Strict-Transport-Security'), path).toContain('max-age=');
    }
    const html = await (await fetch(`${inject('baseUrl')}/`)).text();
    const scripts = [...html.matchAll(/src="(\/assets\/[^"]+\.js)"/g)].map((m) => m[1]!);
    expect(scripts.length).toBeGreaterThan(0);
    for (const src of scripts) {
      expect(await (await fetch(`${inject('baseUrl')}${src}`)).text()).not.toContain('sourceMappingURL');
      const map = await fetch(`${inject('baseUrl')}${src}.map`);
      expect(await map.text()).not.toContain('"mappings"');
    }
  });
});
