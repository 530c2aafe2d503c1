/**
 * A researcher's own task added on the dashboard, with no file placed, no set-up run and no
 * redeploy: the administrator checks a definition and a CSV, adds it (the Worker builds its pools
 * and AI model), offers it to new sessions, and the running platform serves it to a participant on a
 * phone, in Japanese and in English, beside the datasets it was built with.
 */
import { createHash } from 'node:crypto';
import { describe, expect, inject, it } from 'vitest';
import adminEn from '../../web/features/admin/i18n/en.json';
import adminJa from '../../web/features/admin/i18n/ja.json';
import en from '../../web/i18n/en.json';
import ja from '../../web/i18n/ja.json';
import { pageOverflow, signInAsAdmin, useBrowser } from '../e2e/browser';
import { adoptParticipant, makeParticipant, preThroughApi, judgeInitially, startMainPrepared } from '../e2e/participants';
import { loanCsv, loanDefinition } from '../helpers/synthetic-dataset';
import { OWN_ADMIN_PASSWORD } from './global-setup';
import { expectExampleCase, expectOnSelectionPage } from './task-pages';

const session = useBrowser();
const SCREENSHOTS = process.env.XDL_SCREENSHOT_DIR;

/** A second made-up task, this time only ever seen by the running Worker through the dashboard. */
const ADDED_ID = 'loan_review';
const csv = loanCsv(4000, 21);
const base = loanDefinition(createHash('sha256').update(csv).digest('hex'));
const definition = {
  ...base,
  id: ADDED_ID,
  order: 50,
  source: { files: [{ path: `${ADDED_ID}/applications.csv`, sha256: base.source.files[0]!.sha256 }] },
  texts: {
    en: { ...base.texts.en, name: 'Loan review' },
    ja: { ...base.texts.ja, name: 'ローン再審査' },
  },
};
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
    await page.getByTestId('dataset-add-button').click();
    const added = page.getByTestId('dataset-added');
    await added.waitFor({ timeout: 60_000 });
    expect(await added.innerText()).toContain(`${ADDED_ID} を追加しました`);
    expect(await added.innerText()).toContain('402ケース');

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
    await desktop.getByRole('button', { name: 'English' }).click();
    await desktop.getByRole('tab', { name: adminEn.dashboard.tabs.datasets }).click();
    const listed = desktop.getByRole('row').filter({ has: desktop.getByRole('rowheader', { name: ADDED_ID, exact: true }) });
    await listed.waitFor();
    expect(await listed.innerText()).toContain('(402 cases)');
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

    await expectOnSelectionPage(page, t, words.name, 10);
    await expectExampleCase(page, ['credit_score', 'housing', 'region', 'education'].map((name) => column(name).label[language]));

    await preThroughApi(p);
    await page.goto(`${inject('baseUrl')}/experiment/main`);
    await startMainPrepared(page, t.main.start);
    const prediction = await judgeInitially(page, words.task, t.judgement.submit);
    expect([words.aiPositive, words.aiNegative]).toContain(await prediction.innerText());
    const bars = await page.getByTestId('explanation-bars').innerText();
    for (const name of ['income', 'credit_score', 'region']) expect(bars).toContain(column(name).label[language]);
    expect(await pageOverflow(page)).toBeLessThanOrEqual(0);
    if (SCREENSHOTS) await page.screenshot({ path: `${SCREENSHOTS}/added-explanation-${language}-390.png`, fullPage: true });
    await page.context().close();
  });
});
