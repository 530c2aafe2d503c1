import { execFileSync } from 'node:child_process';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, inject, it } from 'vitest';
import { offlineEnv } from '../../ml-assets/lib/wrangler';
import { projectRoot } from '../../ml-assets/lib/paths';
import en from '../../web/i18n/en.json';
import type { DebugHelpers } from '../../web/lib/debug-helpers';
import ja from '../../web/i18n/ja.json';
import { pageStarted, useBrowser } from './browser';

const session = useBrowser();
type Texts = typeof ja;

/** The spec's delays run on Playwright's fake clock: 300 ms after submit, 800 ms between cases. */
async function answerCase(page: Page, texts: Texts, n: number) {
  const heading = page.locator('.case-card h2');
  try {
    await expect.poll(() => heading.innerText({ timeout: 5000 })).toBe(texts.caseCard.heading.replace('{{number}}', String(n)));
  } catch (err) {
    // Say what the participant saw instead, so a failure in CI can be read from the log.
    console.error(`case ${n} did not appear; the page shows:\n${(await page.locator('main').innerText()).slice(0, 800)}`);
    throw err;
  }
  await page.locator('.judgement-prediction .radio').nth(n % 2).click();
  await page.locator('.judgement-confidence .radio').nth(n % 5).click();
  await page.getByRole('button', { name: texts.judgement.submit, exact: true }).click();
  await page.clock.runFor(300);
  await page.clock.runFor(800);
}

async function sessionInfo(id: string) {
  const res = await fetch(`${inject('baseUrl')}/api/experiments/sessions/${id}`);
  return (await res.json()) as { pre_experiment_count: number; dataset_type: string; user_model_status: string; current_phase: string };
}

/** Reads the participant's model straight from the Worker's local R2. */
function userModelInR2(dataset: string, id: string): { trees: unknown[]; metadata: Record<string, unknown> } {
  const out = execFileSync(
    path.join(projectRoot, 'node_modules', '.bin', 'wrangler'),
    ['r2', 'object', 'get', `xai-decision-lab-models/user-models/${dataset}/${id}.json`, '--local', '--persist-to', inject('persistTo'), '--pipe'],
    { cwd: projectRoot, env: offlineEnv(), encoding: 'utf8', maxBuffer: 16 * 1024 * 1024, stdio: ['ignore', 'pipe', 'ignore'] },
  );
  return JSON.parse(out) as { trees: unknown[]; metadata: Record<string, unknown> };
}

async function enterAndConsent(page: Page, texts: Texts): Promise<string> {
  await page.getByTestId('participant-id').waitFor();
  const id = (await page.getByTestId('participant-id').innerText()).trim();
  expect(id).toMatch(/^[A-Z0-9]{8}$/);
  await page.getByRole('button', { name: texts.entry.start }).click();
  await page.waitForURL('**/experiment/consent');
  const agree = page.getByRole('button', { name: texts.consent.agree });
  expect(await agree.isDisabled()).toBe(true);
  for (const item of Object.values(texts.consent.items)) await page.getByRole('checkbox', { name: item }).check({ force: true });
  await agree.click();
  await page.waitForURL('**/experiment/pre');
  return id;
}

async function doTutorial(page: Page, texts: Texts) {
  await page.getByRole('button', { name: texts.pre.tutorialStart }).click();
  const dialog = page.locator('.tutorial-dialog');
  for (let i = 0; i < 2; i++) {
    await expect.poll(() => dialog.locator('h2').first().innerText()).toBe(texts.pre.tutorialCase.replace('{{n}}', String(i + 1)).replace('{{total}}', '2'));
    await dialog.locator('.judgement-prediction .radio').first().click();
    await dialog.locator('.judgement-confidence .radio').nth(2).click();
    await dialog.getByRole('button', { name: texts.judgement.submit, exact: true }).click();
    await page.clock.runFor(300);
    await page.clock.runFor(800);
  }
  await page.getByText(texts.pre.tutorialDone).waitFor();
  await page.getByRole('button', { name: texts.pre.start }).click();
}

async function finish(page: Page, texts: Texts) {
  const state = page.getByTestId('user-model-state');
  for (let i = 0; i < 60 && !(await state.isVisible()); i++) await page.clock.runFor(1000);
  expect(await state.innerText()).toBe(texts.pre.learned.replace('{{count}}', '200'));
}

describe('participant journey', () => {
  it('in Japanese: enters, consents, does the tutorial, answers 200 cases through a reload and 10 offline answers', async () => {
    const page = await session.newPage();
    await page.clock.install();
    await page.goto(`${session.baseUrl()}/`);
    const id = await enterAndConsent(page, ja);
    await doTutorial(page, ja);

    for (let n = 1; n <= 56; n++) await answerCase(page, ja, n);
    // A reload at case 57 comes back at case 57.
    await page.reload();
    await page.locator('.case-card h2').waitFor();
    expect(await page.locator('.case-card h2').innerText()).toBe('ケース 57');
    expect(await page.locator('.case-progress h1').innerText()).toBe('残り 144 件（全体 56 / 200 件完了）');

    // Ten answers while the browser is offline are kept and arrive once it is back.
    await page.context().setOffline(true);
    for (let n = 57; n <= 66; n++) await answerCase(page, ja, n);
    expect((await sessionInfo(id)).pre_experiment_count).toBeLessThan(66);
    await page.context().setOffline(false);
    for (let i = 0; i < 60 && (await sessionInfo(id)).pre_experiment_count < 66; i++) await page.clock.runFor(1000);
    expect((await sessionInfo(id)).pre_experiment_count).toBe(66);

    for (let n = 67; n <= 200; n++) await answerCase(page, ja, n);
    await finish(page, ja);

    const info = await sessionInfo(id);
    expect(info).toMatchObject({ pre_experiment_count: 200, user_model_status: 'trained', current_phase: 'main_experiment' });
    const model = userModelInR2(info.dataset_type, id);
    expect(model.trees).toHaveLength(50);
    expect(model.metadata).toMatchObject({ kind: 'user_model', session_id: id });
    await page.context().close();
  }, 300_000);

  it('in English, for a second dataset forced by the URL', async () => {
    const page = await session.newPage();
    await page.clock.install();
    await page.goto(`${session.baseUrl()}/?dataset=compas`);
    await pageStarted(page);
    await page.evaluate(() => localStorage.setItem('xai-decision-lab-language', 'en'));
    await page.reload();
    expect(await page.getByTestId('dataset-marker').getAttribute('value')).toBe('compas_url');
    const id = await enterAndConsent(page, en);
    await doTutorial(page, en);
    for (let n = 1; n <= 200; n++) await answerCase(page, en, n);
    await finish(page, en);
    const info = await sessionInfo(id);
    expect(info).toMatchObject({ pre_experiment_count: 200, dataset_type: 'compas', user_model_status: 'trained' });
    expect(userModelInR2('compas', id).trees).toHaveLength(50);
    await page.context().close();
  }, 300_000);
});

describe('browser debug helpers', () => {
  it('forcing a dataset error shows the pre-experiment error screen with resume by ID; clearing it recovers', async () => {
    const page = await session.newPage();
    await page.goto(`${session.baseUrl()}/?dataset=speed_dating`);
    await enterAndConsent(page, ja);
    await page.getByRole('button', { name: ja.pre.tutorialStart }).waitFor();
    await page.evaluate(() => (window as unknown as { xaiDebug: DebugHelpers }).xaiDebug.forceDatasetError());
    await page.reload();
    await page.getByText(ja.pre.datasetFetchFailed).waitFor();
    expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe(ja.pre.errorTitle);
    expect(await page.getByLabel(ja.resume.idLabel).inputValue()).toMatch(/^[A-Z0-9]{8}$/);
    await page.evaluate(() => (window as unknown as { xaiDebug: DebugHelpers }).xaiDebug.clearDatasetError());
    await page.reload();
    await page.getByRole('button', { name: ja.pre.tutorialStart }).waitFor();
    await page.context().close();
  });
});
