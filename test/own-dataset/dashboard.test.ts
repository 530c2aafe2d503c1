/**
 * A researcher's own task added on the dashboard, with no file placed, no set-up run and no
 * redeploy: the administrator checks a definition and a CSV, adds it (the Worker builds its pools
 * and AI model), offers it to new sessions, and the running platform serves it to a participant on a
 * phone, in Japanese and in English, beside the datasets it was built with.
 */
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { describe, expect, inject, it } from 'vitest';
import adminEn from '../../web/features/admin/i18n/en.json';
import adminJa from '../../web/features/admin/i18n/ja.json';
import en from '../../web/i18n/en.json';
import ja from '../../web/i18n/ja.json';
import { chooseEnglish, pageOverflow, signInAsAdmin, useBrowser } from '../e2e/browser';
import { adoptParticipant, makeParticipant, preThroughApi, judgeInitially, startMainPrepared } from '../e2e/participants';
import { loanCsv, loanDefinition, RARE_PURPOSE } from '../helpers/synthetic-dataset';
import { understandingQuestion } from '../../worker/schemas/understanding-test';
import { DATASETS } from '../../worker/schemas/datasets';
import { OWN_ADMIN_PASSWORD } from './global-setup';
import { expectExampleCase, expectOnSelectionPage, finishFirstMainCase } from './task-pages';

const session = useBrowser();
const streamText = async (stream: Readable) => {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
};
const SCREENSHOTS = process.env.XDL_SCREENSHOT_DIR;

/**
 * A second made-up task, this time only ever seen by the running Worker through the dashboard, and
 * small: 569 rows (as a public diagnosis dataset has), written as a researcher first writes a
 * definition: no sha256 yet, no understanding sample, the study's default pools (which its rows
 * cannot fill). Nothing is edited beyond what the dashboard proposes.
 */
const ADDED_ID = 'loan_review';
const ROWS = 569;
// Coded (region), ordinal (education) and free categories, one with a rare level, and missing values written two ways.
const csv = loanCsv(ROWS, 21, { rareLevels: true });
const base = loanDefinition(createHash('sha256').update(csv).digest('hex'));
const { understandingSample: _written, ...withoutSample } = base;
const definition = {
  ...withoutSample,
  columns: withoutSample.columns.map((c) => (c.name === 'purpose' && c.kind === 'categorical' ? { ...c, values: { ...c.values, [RARE_PURPOSE]: { en: 'Wedding', ja: '結婚式' } } } : c)),
  id: ADDED_ID,
  order: 50,
  source: { files: [{ path: `${ADDED_ID}/applications.csv` }] },
  texts: {
    en: { ...base.texts.en, name: 'Loan review' },
    ja: { ...base.texts.ja, name: 'ローン再審査' },
  },
};
/** One main pool: 2 tutorial + 200 pre + 50 main cases. */
const CASES = 2 + 200 + 50;
const column = (name: string) => definition.columns.find((c) => c.name === name)!;

describe("a researcher's own dataset, added on the dashboard of the running platform", () => {
  it('is checked, added, built in the Worker and offered to new sessions from the Datasets tab (390×844, ja)', async () => {
    const t = adminJa.dashboard.datasets;
    const page = await session.newPage({ width: 390, height: 844 });
    await signInAsAdmin(page, `${inject('baseUrl')}/admin`, OWN_ADMIN_PASSWORD, adminJa.auth.title, adminJa.auth.password);
    await page.getByRole('tab', { name: adminJa.dashboard.tabs.datasets }).click();
    await page.getByRole('rowheader', { name: 'compas', exact: true }).waitFor();
    expect(await page.getByRole('rowheader', { name: ADDED_ID, exact: true }).count()).toBe(0);

    await page.getByTestId('dataset-definition-file').setInputFiles({ name: `${ADDED_ID}.json`, mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(definition)) });
    await page.getByTestId('dataset-csv-file').setInputFiles({ name: 'applications.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await page.getByRole('button', { name: t.check, exact: true }).click();
    await page.getByTestId('dataset-preview').waitFor();
    // The default pools need 201 held-out rows of each outcome: both are short, each named by its value.
    const short = await page.getByTestId('dataset-preview-short').innerText();
    expect(short).toContain(t.short.positive.split('{{value}}')[0]! + 'yes');
    expect(short).toContain(t.short.negative.split('{{value}}')[0]! + 'no');
    expect(await page.getByTestId('dataset-add-button').count()).toBe(0);
    // The proposal: one main pool at the test share that fills it, what that leaves to train on and the AI's expected accuracy.
    const fit = await page.getByTestId('dataset-proposal-fit').innerText();
    expect(fit).toMatch(/本実験プール 1 個、保留割合 0\.\d+（ケース用に \d+ 行を保留し、AIモデルの学習に \d+ 行が残ります）/);
    // What the AI reaches on those rows, beside the two baselines on the same folds.
    expect(await page.getByTestId('dataset-accuracy').innerText()).toMatch(/AIモデル \d+\.\d%、正則化ロジスティック回帰 \d+\.\d%、常に多い方の結果を答える場合 \d+\.\d%/);
    const proposal = page.getByTestId('dataset-proposal');
    for (const change of [t.change.sha256, t.change.mainPools, t.change.testShare, t.change.sample]) expect(await proposal.innerText()).toContain(change.split('{{')[0]!.trim());
    expect(await pageOverflow(page)).toBeLessThanOrEqual(0);
    if (SCREENSHOTS) await page.screenshot({ path: `${SCREENSHOTS}/admin-dataset-proposal-ja-390.png`, fullPage: true });
    // One click applies them and checks again; the definition as applied can be kept.
    await page.getByTestId('dataset-apply').click();
    await page.getByTestId('dataset-applied').waitFor();
    expect(await page.getByTestId('dataset-proposal').count()).toBe(0);
    const download = page.waitForEvent('download');
    await page.getByTestId('dataset-download-definition').click();
    const kept = JSON.parse(await streamText(await (await download).createReadStream())) as { pools: { mainPools: number }; split: { testSize: number }; source: { files: { sha256: string }[] }; understandingSample: unknown };
    expect(kept.pools.mainPools).toBe(1);
    expect(kept.source.files[0]!.sha256).toBe(base.source.files[0]!.sha256);
    expect(kept.understandingSample).toBeTruthy();
    await page.getByTestId('dataset-add-button').click();
    const added = page.getByTestId('dataset-added');
    await added.waitFor({ timeout: 60_000 });
    expect(await added.innerText()).toContain(`${ADDED_ID} を追加しました`);
    expect(await added.innerText()).toContain(`${CASES}ケース`);

    // Listed as added here, not yet offered: offered once every copy of the Worker knows it, a few seconds on.
    const row = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: ADDED_ID, exact: true }) });
    await row.waitFor();
    expect(await row.innerText()).toContain(t.disabled);
    const offer = row.getByRole('button', { name: t.offer });
    expect(await offer.isDisabled()).toBe(true);
    expect(await row.innerText()).toContain(t.offerableFrom.split('{{time}}')[1]!.trim().slice(0, 6));
    if (SCREENSHOTS) await page.screenshot({ path: `${SCREENSHOTS}/admin-dataset-settling-ja-390.png`, fullPage: true });
    await page.waitForFunction((button) => !(button as HTMLButtonElement).disabled, await offer.elementHandle(), { timeout: 15_000 });
    await offer.click();
    await row.getByRole('button', { name: t.stopOffering }).waitFor();
    expect(await row.innerText()).toContain(t.enabled);
    expect(await pageOverflow(page)).toBeLessThanOrEqual(0);
    if (SCREENSHOTS) await page.screenshot({ path: `${SCREENSHOTS}/admin-dataset-added-ja-390.png`, fullPage: true });

    // The same check again: the id is now in use, so it cannot be added twice.
    await page.getByRole('button', { name: t.check, exact: true }).click();
    await page.getByTestId('dataset-add').getByText(t.idInUse.replace('{{dataset}}', ADDED_ID)).first().waitFor();
    expect(await page.getByTestId('dataset-add-button').count()).toBe(0);
    await page.context().close();

    // In English on a desktop, the table says where each dataset comes from.
    const desktop = await session.newPage({ width: 1280, height: 800 });
    await signInAsAdmin(desktop, `${inject('baseUrl')}/admin`, OWN_ADMIN_PASSWORD, adminJa.auth.title, adminJa.auth.password);
    await chooseEnglish(desktop);
    await desktop.getByRole('tab', { name: adminEn.dashboard.tabs.datasets }).click();
    const listed = desktop.getByRole('row').filter({ has: desktop.getByRole('rowheader', { name: ADDED_ID, exact: true }) });
    await listed.waitFor();
    expect(await listed.innerText()).toContain(`(${CASES} cases)`);
    expect(await desktop.getByRole('row').filter({ has: desktop.getByRole('rowheader', { name: 'compas', exact: true }) }).innerText()).toContain(adminEn.dashboard.datasets.builtIn);
    expect(await pageOverflow(desktop)).toBeLessThanOrEqual(0);
    if (SCREENSHOTS) await desktop.screenshot({ path: `${SCREENSHOTS}/admin-dataset-added-en-1280.png`, fullPage: true });
    await desktop.context().close();
  });

  it.each(['ja', 'en'] as const)('is served to a participant on a phone in %s with no redeploy: selection, case card, explanation', async (language) => {
    const t = language === 'ja' ? ja : en;
    const words = definition.texts[language];
    const page = await session.newPage({ width: 390, height: 844 });
    const p = await makeParticipant(ADDED_ID);
    await adoptParticipant(page, p, language);

    // The entry page names the tasks by their definitions, the one added here among them.
    await page.goto(`${inject('baseUrl')}/`);
    const lead = await page.getByTestId('entry-lead').innerText();
    expect(lead).toContain(words.name);
    expect(lead).toContain(DATASETS.compas!.texts[language].name);
    await expectOnSelectionPage(page, t, words.name, 10);
    await expectExampleCase(page, ['credit_score', 'housing', 'region', 'education'].map((name) => column(name).label[language]));

    await preThroughApi(p);
    await page.goto(`${inject('baseUrl')}/experiment/main`);
    // The understanding test, on the sample the Worker derived from the data (the definition gave none).
    await page.getByRole('button', { name: t.main.test.start }).click();
    const dialog = page.locator('.understanding-test');
    const labels = new Set(definition.columns.map((c) => c.label[language]));
    for (let i = 0; i < 5; i++) {
      const group = dialog.locator('.test-question');
      const question = understandingQuestion((await group.getAttribute('data-question'))!)!;
      if ((await dialog.locator('.test-sample').count()) > 0) {
        const shown = (await dialog.getByTestId('explanation-bars').locator('li').allInnerTexts()).map((bar) => [...labels].find((label) => bar.includes(label)));
        expect(shown.filter(Boolean)).toHaveLength(4);
      }
      await group.locator('.test-option').filter({ has: page.locator(`input[value="${question.correct}"]`) }).click();
      await dialog.getByRole('button', { name: t.main.test.check }).click();
      await dialog.getByRole('button', { name: i === 4 ? t.main.test.seeResults : t.main.test.next }).click();
    }
    expect(await dialog.getByTestId('test-result').getAttribute('data-passed')).toBe('true');
    expect(await pageOverflow(page)).toBeLessThanOrEqual(0);
    await page.keyboard.press('Escape');
    await startMainPrepared(page, t.main.start);
    const prediction = await judgeInitially(page, words.task, t.judgement.submit);
    expect([words.aiPositive, words.aiNegative]).toContain(await prediction.innerText());
    const bars = await page.getByTestId('explanation-bars').innerText();
    for (const name of ['income', 'credit_score', 'region']) expect(bars).toContain(column(name).label[language]);
    expect(await pageOverflow(page)).toBeLessThanOrEqual(0);
    if (SCREENSHOTS) await page.screenshot({ path: `${SCREENSHOTS}/added-explanation-${language}-390.png`, fullPage: true });
    // The case to its end: the final judgement and the questions, then the next case.
    await finishFirstMainCase(page, t);
    expect(await pageOverflow(page)).toBeLessThanOrEqual(0);
    await page.context().close();
  });
});
