/**
 * A researcher's own task served with no code: the made-up loan-approval definition and CSV
 * (test/helpers/synthetic-dataset.ts) beside the shipped three. A participant on a phone (390×844),
 * in Japanese and in English, meets it on the selection page, judges its cases with its own field
 * names, values and labels, sees the AI's prediction and explanation in its words and colours,
 * takes the understanding test on its sample chart and finishes with the completion code; the
 * export and its codebook carry its columns.
 */
import { strFromU8, unzipSync } from 'fflate';
import { describe, expect, inject, it } from 'vitest';
import en from '../../web/i18n/en.json';
import ja from '../../web/i18n/ja.json';
import { DATASET_TYPES } from '../../worker/schemas/study';
import { studyCodes } from '../../worker/study-codes';
import { pageOverflow, useBrowser } from '../e2e/browser';
import { adoptParticipant, makeParticipant, mainThroughApi, postSurveyThroughApi, preThroughApi, judgeInitially, startMainPrepared } from '../e2e/participants';
import { LOAN_ID, loanDefinition } from '../helpers/synthetic-dataset';
import { OWN_ADMIN_PASSWORD } from './global-setup';
import { expectExampleCase, expectOnSelectionPage, finishFirstMainCase } from './task-pages';

const session = useBrowser();
const SCREENSHOTS = process.env.XDL_SCREENSHOT_DIR;
const loan = loanDefinition('0'.repeat(64));
const column = (name: string) => loan.columns.find((c) => c.name === name)!;


describe("a researcher's own dataset, added as a definition and a CSV", () => {
  it('is one of the study datasets the Worker serves', () => {
    expect(DATASET_TYPES).toEqual(['adult_income', 'speed_dating', 'compas', LOAN_ID]);
  });

  it.each(['ja', 'en'] as const)('takes a participant through the whole journey on a phone in %s', async (language) => {
    const t = language === 'ja' ? ja : en;
    const words = loan.texts[language];
    const page = await session.newPage({ width: 390, height: 844 });
    const shot = async (name: string) => {
      if (SCREENSHOTS) await page.screenshot({ path: `${SCREENSHOTS}/own-${name}-${language}-390.png`, fullPage: true });
    };
    const p = await makeParticipant(LOAN_ID);
    await adoptParticipant(page, p, language);

    // The selection page offers it beside the shipped three, with its own name and feature count.
    await expectOnSelectionPage(page, t, words.name, 10);
    await shot('selection');

    // The pre-experiment's example case: its field names and values in words, its task.
    const text = await expectExampleCase(page, ['credit_score', 'housing', 'region', 'education'].map((name) => column(name).label[language]));
    expect(text).not.toMatch(/applicant|A1000/);
    await shot('pre-intro');

    // Its 200 answers (through the API, as a quick participant's would arrive) train the participant's model.
    await preThroughApi(p);

    // The main experiment: its tutorial practises on one of the task's own cases,
    await page.goto(`${inject('baseUrl')}/experiment/main`);
    await page.getByRole('button', { name: t.main.tutorial.start }).click();
    const practice = page.locator('.tutorial-dialog');
    await practice.locator('.case-card h2').waitFor();
    expect(await practice.locator('.case-card').innerText()).toContain(column('debt_ratio').label[language]);
    await practice.getByRole('button', { name: t.common.close }).click();
    await practice.waitFor({ state: 'detached' });
    // and the understanding test's sample chart is the task's own.
    await page.getByRole('button', { name: t.main.test.start }).click();
    const test = page.locator('.understanding-test');
    // Questions are drawn at random; the first one about the chart shows the task's sample.
    for (let q = 0; q < 5; q++) {
      await test.locator('.test-question').waitFor();
      if (await test.locator('.explanation-chart').count()) break;
      await test.locator('.test-option').first().click();
      await test.getByRole('button', { name: t.main.test.check }).click();
      await test.getByRole('button', { name: q === 4 ? t.main.test.seeResults : t.main.test.next }).click();
    }
    expect(await test.getByTestId('explanation-bars').innerText()).toContain(column('credit_score').label[language]);
    await shot('understanding-test');
    await test.getByRole('button', { name: t.common.close }).click();
    await test.waitFor({ state: 'detached' });

    // One case through its four steps, tutorial and test marked done for this tab.
    await startMainPrepared(page, t.main.start);
    const prediction = await judgeInitially(page, words.task, t.judgement.submit);
    expect([words.aiPositive, words.aiNegative]).toContain(await prediction.innerText());
    const colour = await prediction.evaluate((el) => getComputedStyle(el).backgroundColor);
    expect(['rgb(26, 127, 55)', 'rgb(161, 29, 29)']).toContain(colour);
    const bars = await page.getByTestId('explanation-bars').innerText();
    for (const name of ['income', 'credit_score', 'region']) expect(bars).toContain(column(name).label[language]);
    expect(await pageOverflow(page)).toBeLessThanOrEqual(0);
    await shot('explanation');
    await finishFirstMainCase(page, t);

    // The other 49 cases and the post-survey, then the completion page with its code.
    await mainThroughApi(p);
    await postSurveyThroughApi(p);
    await page.goto(`${inject('baseUrl')}/experiment/complete`);
    expect(await page.getByTestId('completion-code').innerText()).toBe(studyCodes.completionCode);
    await shot('complete');

    // The export holds its cases with their feature columns; the codebook says what they mean.
    const files = await allData();
    const caseData = files['case-data.csv']!;
    const header = caseData.split(/\r?\n/)[0]!.split(',');
    for (const name of ['income', 'debt_ratio', 'credit_score', 'housing', 'region', 'education']) expect(header, header.join(' ')).toContain(name);
    expect(caseData).toContain(p.id);
    expect(caseData).not.toMatch(/applicant_name|Alex Example/);
    expect(files['codebook.csv']).toContain(column('credit_score').meaning);
    expect(files['codebook.csv']).toContain(LOAN_ID);

    // The model-verification page's status and the dashboard's figures know it too.
    const status = (await (await asAdmin(`/api/model-verification/ai-model/status?dataset_type=${LOAN_ID}`)).json()) as Record<string, unknown>;
    expect(JSON.stringify(status)).toMatch(/accuracy/);
    const stats = JSON.stringify(await (await asAdmin('/api/admin/stats')).json());
    expect(stats).toContain(LOAN_ID);
    await page.context().close();
  });
});

/** A call as the signed-in administrator. */
async function asAdmin(path: string): Promise<Response> {
  const base = inject('baseUrl');
  const headers = { 'CF-Connecting-IP': '203.0.113.9' };
  const login = await fetch(`${base}/api/admin/login`, { method: 'POST', headers: { ...headers, 'Content-Type': 'application/json' }, body: JSON.stringify({ password: OWN_ADMIN_PASSWORD }) });
  expect(login.status).toBe(200);
  const res = await fetch(`${base}${path}`, { headers: { ...headers, Cookie: (login.headers.get('set-cookie') ?? '').split(';')[0]! } });
  expect(res.status, path).toBe(200);
  return res;
}

/** The all-data export, as an administrator downloads it: file name → text. */
async function allData(): Promise<Record<string, string>> {
  const files = unzipSync(new Uint8Array(await (await asAdmin('/api/enhanced-export/all-data?format=csv')).arrayBuffer()));
  return Object.fromEntries(Object.entries(files).map(([name, bytes]) => [name.split('/').at(-1)!, strFromU8(bytes)]));
}
