import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import adminEn from '../../web/features/admin/i18n/en.json';
import adminJa from '../../web/features/admin/i18n/ja.json';
import { useBrowser } from './browser';
import { E2E_ADMIN_PASSWORD } from './global-setup';

const session = useBrowser();
const SCREENSHOTS = process.env.XDL_SCREENSHOT_DIR;

async function signIn(page: Page, path: string) {
  await page.goto(`${session.baseUrl()}${path}`);
  const dialog = page.getByRole('dialog', { name: adminJa.auth.title });
  await dialog.waitFor();
  const field = dialog.getByLabel(adminJa.auth.password);
  await field.fill(E2E_ADMIN_PASSWORD);
  // Enter submits (part 1 §5).
  await field.press('Enter');
  await dialog.waitFor({ state: 'detached' });
}

/** Registers a synthetic participant through the dashboard's own session (the page's cookie). */
async function registerThroughPage(page: Page, name: string) {
  return page.evaluate(async (participant) => {
    const res = await fetch(`/api/admin/register-user-responses?participant_name=${participant}&dataset_type=compas&num_responses=12&accuracy_rate=0.75`, { method: 'POST' });
    return res.status;
  }, name);
}

/** Neither the page nor any of its parts is wider than the screen, except inside table scrollers. */
const pageOverflow = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);

describe('/admin', () => {
  it('asks for the password, then shows a registered synthetic participant, exports CSV, deletes it and signs out', async () => {
    const page = await session.newPage({ width: 1280, height: 800 });
    await signIn(page, '/admin');
    await page.getByRole('heading', { name: adminJa.dashboard.title }).waitFor();

    const name = `test_e2e${Date.now().toString(36)}`;
    expect(await registerThroughPage(page, name)).toBe(200);
    await page.getByRole('button', { name: adminJa.dashboard.refresh }).click();
    const row = page.getByRole('row').filter({ hasText: name });
    await row.waitFor();
    await expect.poll(() => row.locator('.badge').first().innerText()).toBe(adminJa.dashboard.values.test);
    await expect.poll(async () => Number(await page.locator('[data-summary="users"]').innerText())).toBeGreaterThanOrEqual(1);

    // The pre-experiment tab exports this participant's answers as CSV.
    await page.getByRole('tab', { name: /事前実験/ }).click();
    await page.getByLabel(adminJa.dashboard.exports.userFilter).fill(name);
    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('[data-export="pre-experiment"]').click()]);
    expect(download.suggestedFilename()).toMatch(new RegExp(`^pre-experiment_\\d{8}-\\d{6}_${name}\\.csv$`));
    const csv = Papa.parse<Record<string, string>>(readFileSync((await download.path())!, 'utf8'), { header: true, skipEmptyLines: true });
    expect(csv.data).toHaveLength(12);
    expect(new Set(csv.data.map((r) => r.user_name))).toEqual(new Set([name]));

    // Back on the users tab: delete with the cascading-deletion warning.
    await page.getByRole('tab', { name: /ユーザー/ }).click();
    await row.getByRole('button', { name: adminJa.dashboard.actions.delete }).click();
    const confirm = page.getByRole('alertdialog');
    await confirm.getByText(adminJa.dashboard.deleteUser.body).waitFor();
    await confirm.getByRole('button', { name: adminJa.dashboard.actions.confirmDelete }).click();
    await page.getByRole('status').filter({ hasText: name }).waitFor();
    await row.waitFor({ state: 'detached' });
    const gone = await page.evaluate(async (participant) => (await (await fetch(`/api/admin/users?user_name=${participant}`)).json()) as { total: number }, name);
    expect(gone.total).toBe(0);

    await page.getByRole('button', { name: adminJa.auth.logout }).click();
    await page.getByRole('dialog', { name: adminJa.auth.title }).waitFor();
    expect(await page.evaluate(async () => (await fetch('/api/admin/users')).status)).toBe(401);
    await page.context().close();
  });

  it('refuses a wrong password in the dialog and keeps the dashboard hidden', async () => {
    const page = await session.newPage();
    await page.goto(`${session.baseUrl()}/admin`);
    const dialog = page.getByRole('dialog', { name: adminJa.auth.title });
    await dialog.getByLabel(adminJa.auth.password).fill('not the password');
    await dialog.getByRole('button', { name: adminJa.auth.submit }).click();
    await dialog.getByRole('alert').waitFor();
    expect(await page.getByRole('heading', { name: adminJa.dashboard.title }).count()).toBe(0);
    await page.context().close();
  });

  it.each([
    [390, 844],
    [1280, 800],
  ])('lays out the dashboard and home page without page overflow at %i×%i in both languages', async (width, height) => {
    const page = await session.newPage({ width, height });
    await signIn(page, '/admin');
    expect(await registerThroughPage(page, `test_layout${width}`)).toBe(200);
    for (const lang of ['ja', 'en'] as const) {
      const texts = lang === 'ja' ? adminJa : adminEn;
      if (lang === 'en') await page.getByRole('button', { name: 'English' }).click();
      await page.getByRole('heading', { name: texts.dashboard.title }).waitFor();
      await page.getByRole('button', { name: texts.dashboard.refresh }).click();
      await page.locator('[data-chart="funnel"] .recharts-bar-rectangle').first().waitFor();
      expect(await pageOverflow(page)).toBeLessThanOrEqual(0);
      if (SCREENSHOTS) await page.screenshot({ path: `${SCREENSHOTS}/admin-${lang}-${width}.png`, fullPage: true });
      for (const tab of ['studyConfig', 'cleanup', 'registration'] as const) {
        await page.getByRole('tab', { name: texts.dashboard.tabs[tab] }).click();
        // The configuration tab shows the running version, read-only.
        if (tab === 'studyConfig') expect(await page.getByTestId('study-config-version').innerText()).toMatch(/^\d+\.\d+\.\d+\+[0-9a-f]{12}$/);
        expect(await pageOverflow(page), tab).toBeLessThanOrEqual(0);
        if (SCREENSHOTS) await page.screenshot({ path: `${SCREENSHOTS}/admin-${tab}-${lang}-${width}.png`, fullPage: true });
      }
      await page.getByRole('tab', { name: /ユーザー|Users/ }).click();
      await page.goto(`${session.baseUrl()}/home`);
      await page.getByRole('heading', { name: texts.home.title }).waitFor();
      expect(await pageOverflow(page)).toBeLessThanOrEqual(0);
      if (SCREENSHOTS) await page.screenshot({ path: `${SCREENSHOTS}/home-${lang}-${width}.png`, fullPage: true });
      await page.goto(`${session.baseUrl()}/admin`);
    }
    await page.context().close();
  });
});
