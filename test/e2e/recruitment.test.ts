/**
 * A researcher pauses the study on the dashboard (with a confirmation); a newcomer then gets a page
 * in the interface's language that says so, with the study's contacts and, from Prolific, the way
 * back to Prolific, and nothing is stored for them. Phone and desktop, Japanese and English.
 */
import { afterAll, describe, expect, inject, it } from 'vitest';
import adminEn from '../../web/features/admin/i18n/en.json';
import adminJa from '../../web/features/admin/i18n/ja.json';
import en from '../../web/i18n/en.json';
import ja from '../../web/i18n/ja.json';
import { storageKeys } from '../../web/lib/storage-keys';
import { studyCodes } from '../../worker/study-codes';
import { chooseEnglish, LANGUAGES_AND_SCREENS, pageOverflow, pageStarted, signInAsAdmin, useBrowser } from './browser';
import { E2E_ADMIN_PASSWORD } from './global-setup';
import { d1Rows } from './participants';

const session = useBrowser();
const SCREENSHOTS = process.env.XDL_SCREENSHOT_DIR;

/** Back to open through the API, whatever a failed test left. */
afterAll(async () => {
  const base = inject('baseUrl');
  const login = await fetch(`${base}/api/admin/login`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'CF-Connecting-IP': '203.0.113.77' }, body: JSON.stringify({ password: E2E_ADMIN_PASSWORD }) });
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]!;
  await fetch(`${base}/api/admin/recruitment`, { method: 'PUT', headers: { Cookie: cookie, 'Content-Type': 'application/json', 'CF-Connecting-IP': '203.0.113.77' }, body: JSON.stringify({ status: 'open', targets: null }) });
});

describe('recruitment status', () => {
  it('is paused on the dashboard after a confirmation, and a newcomer is told so with nothing stored (390 and 1280, ja and en)', async () => {
    const admin = await session.newPage({ width: 1280, height: 800 });
    await signInAsAdmin(admin, `${inject('baseUrl')}/admin`, E2E_ADMIN_PASSWORD, adminJa.auth.title, adminJa.auth.password);
    await admin.getByRole('tab', { name: adminJa.dashboard.tabs.recruitment }).click();
    await admin.getByTestId('recruitment-current').getByText(ja.recruitment.status.open).waitFor();
    await admin.getByTestId('recruitment-tab').getByText(ja.recruitment.status.paused, { exact: true }).click();
    await admin.getByRole('button', { name: adminJa.dashboard.recruitment.apply }).click();
    // Nothing changes before the confirmation.
    const dialog = admin.getByRole('alertdialog');
    await dialog.waitFor();
    expect(await dialog.innerText()).toContain(adminJa.dashboard.recruitment.confirm.paused);
    await dialog.getByRole('button', { name: adminJa.dashboard.recruitment.apply }).click();
    await admin.getByTestId('recruitment-current').getByText(ja.recruitment.status.paused).waitFor();
    if (SCREENSHOTS) await admin.screenshot({ path: `${SCREENSHOTS}/admin-recruitment-ja-1280.png`, fullPage: true });
    await admin.context().close();

    const before = d1Rows<{ n: number }>('select (select count(*) from participants) + (select count(*) from dataset_assignments) as n')[0]!.n;
    for (const [lang, width, height] of LANGUAGES_AND_SCREENS) {
      const texts = lang === 'ja' ? ja : en;
      const page = await session.newPage({ width, height });
      await page.goto(`${inject('baseUrl')}/`);
      await pageStarted(page);
      await page.evaluate(([key, value]) => localStorage.setItem(key!, value!), [storageKeys.language, lang]);
      await page.goto(`${inject('baseUrl')}/?PROLIFIC_PID=5f8e2c1a9b3d4e0012340000&STUDY_ID=64a1b2c3d4e5f60012340000&SESSION_ID=paused-${lang}-${width}`);
      const notice = page.getByTestId('study-unavailable');
      await notice.waitFor();
      expect(await notice.getAttribute('data-status')).toBe('paused');
      expect(await notice.innerText()).toContain(texts.recruitment.paused.title);
      // The study's contacts, and the way back to Prolific with the study's return code.
      expect(await notice.locator('a[href^="mailto:"]').count()).toBeGreaterThan(0);
      expect(await page.getByTestId('prolific-return').getAttribute('href')).toBe(`https://app.prolific.com/submissions/complete?cc=${studyCodes.prolificReturnCode}`);
      expect(await page.getByRole('button', { name: texts.entry.start }).count()).toBe(0);
      // On a phone the notice and the way back are in view without scrolling.
      const box = (await page.getByTestId('prolific-return').boundingBox())!;
      if (width === 390) expect(box.y + box.height).toBeLessThanOrEqual(height);
      expect(await pageOverflow(page)).toBeLessThanOrEqual(0);
      if (SCREENSHOTS) await page.screenshot({ path: `${SCREENSHOTS}/entry-paused-${lang}-${width}.png`, fullPage: true });
      await page.context().close();
    }
    expect(d1Rows<{ n: number }>('select (select count(*) from participants) + (select count(*) from dataset_assignments) as n')[0]!.n).toBe(before);
  });

  it('shows the recruitment view (places per cell, funnel, pace) and saves a target, at 390 and 1280 in both languages', async () => {
    for (const [lang, width, height] of [
      ['ja', 390, 844],
      ['en', 1280, 800],
      ['en', 390, 844],
      ['ja', 1280, 800],
    ] as const) {
      const texts = lang === 'ja' ? adminJa : adminEn;
      const page = await session.newPage({ width, height });
      await signInAsAdmin(page, `${inject('baseUrl')}/admin`, E2E_ADMIN_PASSWORD, adminJa.auth.title, adminJa.auth.password);
      if (lang === 'en') await chooseEnglish(page);
      await page.getByRole('tab', { name: texts.dashboard.tabs.recruitment }).click();
      const cells = page.locator('[data-chart="recruitment-cells"]');
      await cells.locator('.recharts-surface').first().waitFor();
      // Every cell named on the chart, and in the table beneath.
      const groups = Number(await cells.getAttribute('data-groups'));
      expect(groups).toBeGreaterThan(0);
      expect(await cells.locator('.group-tick').count()).toBe(groups);
      expect(await page.getByTestId('recruitment-cells').locator('tbody tr').count()).toBe(groups);
      expect(await page.getByTestId('recruitment-funnel').innerText()).toContain(texts.dashboard.recruitment.steps.survey_done);
      await page.getByTestId('recruitment-pace').waitFor();
      expect(await pageOverflow(page)).toBeLessThanOrEqual(0);
      if (SCREENSHOTS) await page.screenshot({ path: `${SCREENSHOTS}/admin-recruitment-view-${lang}-${width}.png`, fullPage: true });
      await page.context().close();
    }
    // A target saved from the form is the one in force.
    const page = await session.newPage({ width: 1280, height: 800 });
    await signInAsAdmin(page, `${inject('baseUrl')}/admin`, E2E_ADMIN_PASSWORD, adminJa.auth.title, adminJa.auth.password);
    await page.getByRole('tab', { name: adminJa.dashboard.tabs.recruitment }).click();
    await page.getByTestId('target-overall').fill('5000');
    await page.getByRole('button', { name: adminJa.dashboard.recruitment.saveTargets }).click();
    await page.getByText(adminJa.dashboard.recruitment.targetsSaved).waitFor();
    const state = await page.evaluate(async () => (await (await fetch('/api/admin/recruitment')).json()) as { targets: { overallTarget: number } | null });
    expect(state.targets?.overallTarget).toBe(5000);
    // A target that is not a whole number is refused in the form.
    await page.getByTestId('target-overall').fill('2.5');
    await page.getByText(adminJa.dashboard.recruitment.targetsInvalid).waitFor();
    await page.context().close();
  });
});
