import path from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import adminJa from '../../web/features/admin/i18n/ja.json';
import mvEn from '../../web/features/model-verification/i18n/en.json';
import mvJa from '../../web/features/model-verification/i18n/ja.json';
import { chooseEnglish, pageOverflow, signInAsAdmin, useBrowser } from './browser';
import { E2E_ADMIN_PASSWORD } from './global-setup';
import { CONSENT_ITEMS } from '../../worker/schemas/study-config';

const session = useBrowser();
const SCREENSHOTS = process.env.XDL_SCREENSHOT_DIR;

async function signIn(page: Page) {
  await signInAsAdmin(page, `${session.baseUrl()}/model-verification`, E2E_ADMIN_PASSWORD, adminJa.auth.title, adminJa.auth.password);
  await page.getByRole('heading', { name: mvJa.title }).waitFor();
}

/** The real LightGBM COMPAS dump and its encoding: a model a researcher trained in Python. */
const COMPAS_FIXTURE = path.join(process.env.XDL_FIXTURES_DIR ?? path.join(import.meta.dirname, '..', '..', '..', 'shared', 'fixtures', 'lightgbm'), 'compas', 'ai_model');

const activeModel = (page: Page) =>
  page.evaluate(async () => ((await (await fetch('/api/model-verification/ai-model/status?dataset_type=compas')).json()) as { model_identifier: string }).model_identifier);

describe('/model-verification', () => {
  it("takes a researcher's own LightGBM model: refuses a wrong file, validates the real one, shows it beside the active model and activates it on confirmation", async () => {
    const page = await session.newPage({ width: 1280, height: 800 });
    await signIn(page);
    await page.getByTestId('dataset-select').selectOption('compas');
    const before = await activeModel(page);
    // The set-up model's test accuracy beside the two baselines fitted in the same build.
    for (const label of [mvJa.ai.testAccuracy, mvJa.ai.baselineLogistic, mvJa.ai.baselineMajority]) {
      const fact = page.locator('.facts div').filter({ has: page.getByText(label, { exact: true }) });
      expect(await fact.locator('dd').innerText(), label).toMatch(/^\d+\.\d+%$/);
    }

    // The encoding alone is not a model: the refusal says why.
    await page.getByTestId('upload-model-file').setInputFiles(path.join(COMPAS_FIXTURE, 'encoding.json'));
    await page.getByRole('button', { name: mvJa.upload.check }).click();
    await page.getByTestId('upload-refused').getByText('model', { exact: false }).first().waitFor();

    await page.getByTestId('upload-model-file').setInputFiles(path.join(COMPAS_FIXTURE, 'model.json'));
    await page.getByTestId('upload-encoding-file').setInputFiles(path.join(COMPAS_FIXTURE, 'encoding.json'));
    await page.getByRole('button', { name: mvJa.upload.check }).click();
    const result = page.getByTestId('upload-result');
    await result.waitFor({ timeout: 30_000 });
    expect(await result.locator('tbody tr').count()).toBe(6);
    expect(await result.locator('tbody tr').first().locator('td').nth(1).innerText()).toMatch(/%$/);
    if (SCREENSHOTS) await page.screenshot({ path: `${SCREENSHOTS}/mv-upload-ja-1280.png`, fullPage: true });
    // Still the set-up's model until confirmed.
    expect(await activeModel(page)).toBe(before);
    await result.getByRole('button', { name: mvJa.versions.activate }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: mvJa.versions.activate }).click();
    await page.getByRole('status').filter({ hasText: before }).waitFor();
    const uploaded = await activeModel(page);
    expect(uploaded).not.toBe(before);

    // A retrain is a candidate beside the active model on the same cases; nothing switches.
    await page.getByRole('button', { name: mvJa.ai.retrain }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: mvJa.ai.retrain }).click();
    const retrained = page.getByTestId('retrain-result');
    await retrained.waitFor({ timeout: 120_000 });
    expect(await retrained.locator('tbody tr').count()).toBe(6);
    expect(await activeModel(page)).toBe(uploaded);
    if (SCREENSHOTS) await page.screenshot({ path: `${SCREENSHOTS}/mv-retrain-ja-1280.png`, fullPage: true });

    // Back to the set-up's model from the list of versions, so the other suites' COMPAS participants keep it.
    const versions = page.getByTestId('model-versions');
    await versions.locator(`tr[data-version="${before}"]`).getByRole('button', { name: mvJa.versions.rollback }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: mvJa.versions.activate }).click();
    await expect.poll(() => activeModel(page)).toBe(before);
    await versions.locator(`tr[data-version="${before}"]`).getByText(mvJa.versions.statuses.active).waitFor();
    await page.context().close();
  });

  it('switches dataset, trains a registered synthetic participant’s user model and lists it as trained', async () => {
    const page = await session.newPage({ width: 1280, height: 800 });
    await signIn(page);
    const name = `test_mv${Date.now().toString(36)}`;
    const status = await page.evaluate(
      async (n) => (await fetch(`/api/admin/register-user-responses?participant_name=${n}&dataset_type=speed_dating&num_responses=40&accuracy_rate=0.7`, { method: 'POST' })).status,
      name,
    );
    expect(status).toBe(200);

    await page.getByTestId('dataset-select').selectOption('speed_dating');
    await page.getByRole('tab', { name: mvJa.tabs.users }).click();
    const row = page.locator(`tr[data-user="${name}"]`);
    await row.waitFor();
    expect(await row.locator('.badge').innerText()).toBe(mvJa.users.status.trainable);
    await row.getByRole('button', { name: mvJa.users.train }).click();
    await expect.poll(() => row.locator('.badge').innerText(), { timeout: 20_000 }).toBe(mvJa.users.status.trained);
    await page.getByRole('status').waitFor();

    // The other tabs show the model, the comparison chart and the model's details.
    await page.getByRole('tab', { name: mvJa.tabs.comparison }).click();
    await page.locator('[data-chart="ai-vs-users"] .recharts-bar-rectangle').first().waitFor();
    await page.getByRole('tab', { name: mvJa.tabs.details }).click();
    await page.locator('[data-chart="importance"] .recharts-bar-rectangle').first().waitFor();
    await page.context().close();
  });

  it.each([
    [390, 844],
    [1280, 800],
  ])('lists a participant whose model could not be fitted (one answer to every case) as failed, with why, at %i×%i in both languages', async (width, height) => {
    const page = await session.newPage({ width, height });
    await signIn(page);
    // A participant through the API as the pages do it, answering 1 to all 200 cases.
    const id = await page.evaluate(async (items) => {
      const post = (url: string, body: unknown) => fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) }).then((r) => r.json());
      const code = Array.from(crypto.getRandomValues(new Uint8Array(8)), (b) => 'ABCDEFGHJKMNPQRSTUVWXYZ23456789'[b % 31]).join('');
      const session = (await post('/api/experiments/sessions', { participant_name: code, dataset_type: 'compas', new_participant: true })) as { user_id: number };
      await post('/api/consent/submit', { session_id: code, user_id: session.user_id, consent_items: Object.fromEntries(items.map((k) => [k, true])) });
      const set = (await (await fetch(`/api/experiments/case-sets/fixed?participant_id=${code}&num_cases=200&experiment_type=pre_experiment`)).json()) as { case_set: { case_id: string }[] };
      await post('/api/experiments/pre-experiment/responses/batch', { session_id: code, responses: set.case_set.map((c) => ({ case_id: c.case_id, prediction: 1, confidence: 3, response_time_ms: 900 })) });
      await post('/api/user-model/train', { session_id: code, dataset_type: 'compas' });
      return code;
    }, [...CONSENT_ITEMS]);
    await page.getByTestId('dataset-select').selectOption('compas');
    for (const lang of ['ja', 'en'] as const) {
      const texts = lang === 'ja' ? mvJa : mvEn;
      if (lang === 'en') await chooseEnglish(page);
      await page.getByRole('tab', { name: texts.tabs.users }).click();
      const row = page.locator(`tr[data-user="${id}"]`);
      await row.waitFor();
      expect(await row.locator('.badge').innerText()).toBe(texts.users.status.training_failed);
      expect(await row.locator('.mv-failure').innerText()).toContain('every one of the 200');
      expect(await pageOverflow(page), `${lang} ${width}`).toBeLessThanOrEqual(0);
      if (SCREENSHOTS) {
        await row.scrollIntoViewIfNeeded();
        await page.screenshot({ path: `${SCREENSHOTS}/mv-failed-model-${lang}-${width}.png` });
      }
    }
    await page.context().close();
  });

  it.each([
    [390, 844],
    [1280, 800],
  ])('lays out every tab without page overflow at %i×%i in both languages', async (width, height) => {
    const page = await session.newPage({ width, height });
    await signIn(page);
    for (const lang of ['ja', 'en'] as const) {
      const texts = lang === 'ja' ? mvJa : mvEn;
      if (lang === 'en') await chooseEnglish(page);
      await page.getByRole('heading', { name: texts.title }).waitFor();
      for (const tab of ['ai', 'users', 'comparison', 'details'] as const) {
        await page.getByRole('tab', { name: texts.tabs[tab] }).click();
        await page.waitForTimeout(300);
        expect(await pageOverflow(page), `${lang} ${tab}`).toBeLessThanOrEqual(0);
        if (tab === 'details') {
          // Every feature name on the importance chart is whole: none starts left of the chart.
          await page.locator('[data-chart="importance"] .recharts-cartesian-axis-tick-value').first().waitFor();
          const clipped = await page.evaluate(() => {
            const chart = document.querySelector('[data-chart="importance"] svg')!.getBoundingClientRect();
            return Array.from(document.querySelectorAll('[data-chart="importance"] .yAxis .recharts-cartesian-axis-tick-value'))
              .filter((t) => t.getBoundingClientRect().left < chart.left - 0.5)
              .map((t) => t.textContent);
          });
          expect(clipped, `${lang} ${width}`).toEqual([]);
        }
        if (SCREENSHOTS) await page.screenshot({ path: `${SCREENSHOTS}/mv-${tab}-${lang}-${width}.png`, fullPage: true });
      }
    }
    await page.context().close();
  });
});
