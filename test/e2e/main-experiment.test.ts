import type { Page } from 'playwright-core';
import { describe, expect, inject, it } from 'vitest';
import en from '../../web/i18n/en.json';
import ja from '../../web/i18n/ja.json';
import { serveBarsFromText } from '../../worker/db/feature-bars';
import { understandingQuestion } from '../../worker/schemas/understanding-test';
import { inViewport, LANGUAGES_AND_SCREENS, pageOverflow, useBrowser } from './browser';

const SCREENSHOTS = process.env.XDL_SCREENSHOT_DIR;
import { adoptParticipant, d1Rows, makeParticipant, participantReadyForMain, type TestParticipant } from './participants';

const session = useBrowser();
type Texts = typeof ja;

const fill = (text: string, values: Record<string, string | number>) => Object.entries(values).reduce((s, [k, v]) => s.replace(`{{${k}}}`, String(v)), text);

/** Runs Playwright's fake clock until `done` holds (real network calls go on meanwhile). */
async function runUntil(page: Page, done: () => Promise<boolean>, what: string, steps = 120) {
  for (let i = 0; i < steps; i++) {
    if (await done()) return;
    await page.clock.runFor(250);
    await page.waitForTimeout(20);
  }
  throw new Error(`${what} did not happen; the page shows:\n${(await page.locator('main').innerText()).slice(0, 800)}`);
}

async function judge(scope: Page | ReturnType<Page['locator']>, page: Page, texts: Texts, prediction: number, confidence: number) {
  await scope.locator('.judgement-prediction .radio').nth(prediction).click();
  await scope.locator('.judgement-confidence .radio').nth(confidence).click();
  await scope.getByRole('button', { name: texts.judgement.submit, exact: true }).click();
  await page.clock.runFor(300);
}

/** One case through its four steps; `n` is the case number shown. */
async function answerMainCase(page: Page, texts: Texts, n: number, scope: Page | ReturnType<Page['locator']> = page) {
  if (n > 0) {
    const heading = page.locator('.case-card h2').first();
    await runUntil(page, async () => (await heading.isVisible()) && (await heading.innerText()) === fill(texts.caseCard.heading, { number: n }), `case ${n}`);
  }
  await judge(scope, page, texts, n % 2, n % 5);
  const prediction = scope.getByTestId('ai-prediction');
  await runUntil(page, () => prediction.isVisible(), `the explanation of case ${n}`);
  // The panel reads as the study defines it: the model's recorded accuracy and one bar per feature.
  expect(await scope.getByTestId('accuracy-note').innerText()).toMatch(/\d+\.\d%/);
  expect(await scope.getByTestId('explanation-bars').locator('li').count()).toBeGreaterThan(5);
  await scope.getByRole('button', { name: texts.main.toFinal }).click();
  await judge(scope, page, texts, (n + 1) % 2, (n + 2) % 5);
  const items = scope.locator('.survey-item');
  await items.first().waitFor();
  // The questions are about this case's explanation: it is in view with them, its prediction and bars shown.
  const shown = scope.getByTestId('survey-explanation');
  expect(await shown.getByTestId('ai-prediction').isVisible()).toBe(true);
  expect(await shown.getByTestId('explanation-bars').isVisible()).toBe(true);
  // The submit bar is in view on the screen that opens the questions (a phone included).
  expect(await scope.getByRole('button', { name: texts.main.survey.submit }).isVisible()).toBe(true);
  expect(await inViewport(scope.getByRole('button', { name: texts.main.survey.submit }))).toBe(true);
  if (SCREENSHOTS && n === 1) await page.screenshot({ path: `${SCREENSHOTS}/main-step4-${texts === ja ? 'ja' : 'en'}-${page.viewportSize()!.width}.png`, fullPage: true });
  if (n === 1) {
    // Issue #59, point 3: answers picked on the survey step come back after a reload, the step with them.
    await items.nth(0).locator('.radio').nth(2).click();
    await items.nth(3).locator('.radio').nth(4).click();
    await page.reload();
    await runUntil(page, () => items.first().isVisible(), 'the survey step after a reload');
    expect(await items.nth(0).locator('.radio').nth(2).getAttribute('data-selected')).toBe('true');
    expect(await items.nth(3).locator('.radio').nth(4).getAttribute('data-selected')).toBe('true');
    expect(await items.nth(1).locator('.radio[data-selected]').count()).toBe(0);
  }
  for (let i = 0; i < 5; i++) await items.nth(i).locator('.radio').nth((n + i) % 5).click();
  await scope.getByRole('button', { name: texts.main.survey.submit }).click();
  await page.clock.runFor(800);
}

async function doTutorial(page: Page, texts: Texts) {
  await page.getByRole('button', { name: texts.main.tutorial.start }).click();
  const dialog = page.locator('.tutorial-dialog');
  await dialog.locator('.case-card').waitFor();
  await answerMainCase(page, texts, 0, dialog);
  await page.getByText(texts.main.tutorial.done).waitFor();
}

/** Answers the five questions on screen, one of them wrongly when `wrongOnce`; returns the result shown. */
async function takeTest(page: Page, texts: Texts, wrongOnce: boolean) {
  const dialog = page.locator('.understanding-test');
  for (let i = 0; i < 5; i++) {
    const group = dialog.locator('.test-question');
    const id = (await group.getAttribute('data-question'))!;
    const question = understandingQuestion(id)!;
    const answer = wrongOnce && i === 2 ? question.options.find((o) => o !== question.correct)! : question.correct;
    // Check needs an answer first.
    expect(await dialog.getByRole('button', { name: texts.main.test.check }).isDisabled()).toBe(true);
    await group.locator('.test-option').filter({ has: page.locator(`input[value="${answer}"]`) }).click();
    await dialog.getByRole('button', { name: texts.main.test.check }).click();
    expect(await dialog.getByTestId('test-feedback').innerText()).toContain(answer === question.correct ? texts.main.test.correct : texts.main.test.incorrect.split('{{')[0]!.trim());
    await dialog.getByRole('button', { name: i === 4 ? texts.main.test.seeResults : texts.main.test.next }).click();
  }
  return dialog.getByTestId('test-result');
}

async function introToCases(page: Page, texts: Texts) {
  const start = page.getByRole('button', { name: texts.main.start, exact: true });
  await start.waitFor();
  expect(await start.isDisabled()).toBe(true);
  await doTutorial(page, texts);
  expect(await start.isDisabled()).toBe(true);

  await page.getByRole('button', { name: texts.main.test.start }).click();
  const failed = await takeTest(page, texts, true);
  expect(await failed.getAttribute('data-passed')).toBe('false');
  expect(await failed.innerText()).toContain(fill(texts.main.test.score, { correct: 4, total: 5, percent: 80 }));
  await page.getByRole('button', { name: texts.main.test.retry }).click();
  const passed = await takeTest(page, texts, false);
  expect(await passed.getAttribute('data-passed')).toBe('true');
  await page.getByRole('button', { name: texts.main.test.finish }).click();
  await page.getByText(texts.main.test.passedBadge).waitFor();
  expect(await start.isDisabled()).toBe(false);
  await start.click();
}

type StoredCase = { case_number: number; alignment_alpha: number | null; explanation_kind: string | null; bars: string | null; names: string | null; user_model_identifier: string | null };
/** A serve's packed bars with its list of feature names put back (kept once, in `feature_lists`). */
const wholeBars = (bars: string, names: string | null) => {
  const packed = JSON.parse(bars) as { f?: unknown };
  return serveBarsFromText(typeof packed.f === 'number' ? JSON.stringify({ ...packed, f: JSON.parse(names!) as unknown }) : bars);
};
const storedCases = (p: TestParticipant) =>
  d1Rows<StoredCase>(
    // The bars are the serve's the trial names (issue #45: kept once).
    `select r.case_number, r.alignment_alpha, r.explanation_kind, s.bars, f.names, r.user_model_identifier
       from main_experiment_responses r left join served_explanations s on s.id = r.served_explanation_id
       left join feature_lists f on f.id = json_extract(s.bars, '$.f') where r.session_id = '${p.id}' order by r.case_number`,
  ).map(({ bars, names, ...r }) => ({ ...r, ...(bars ? wholeBars(bars, names) : { shown: null, ai: null }) }));

async function mainJourney(p: TestParticipant, page: Page, texts: Texts) {
  await page.clock.install();
  await adoptParticipant(page, p, texts === ja ? 'ja' : 'en');
  await page.goto(`${inject('baseUrl')}/experiment/main-intro`);
  await page.waitForURL('**/experiment/main');
  await introToCases(page, texts);
  // Issue #59, point 3: a reload on the first case, before anything is given, comes back to the case, not the introduction.
  await runUntil(page, async () => d1Rows<{ n: number }>(`select count(*) as n from main_trial_progress where session_id = '${p.id}' and opened_at is not null`)[0]!.n === 1, 'case 1 opened');
  await page.reload();
  const first = page.locator('.case-card h2').first();
  await runUntil(page, async () => (await first.isVisible()) && (await first.innerText()) === fill(texts.caseCard.heading, { number: 1 }), 'case 1 after a reload');
  expect(await page.getByRole('button', { name: texts.main.start, exact: true }).count()).toBe(0);

  for (let n = 1; n <= 22; n++) await answerMainCase(page, texts, n);
  await runUntil(page, async () => storedCases(p).length === 22, 'the 22nd save');
  // A reload at case 23 comes back at case 23, past the intro.
  await page.reload();
  await runUntil(page, async () => (await page.locator('.case-progress h1').count()) > 0, 'the resumed case screen');
  expect(await page.locator('.case-progress h1').innerText()).toBe(fill(texts.main.remaining, { remaining: 28, done: 22, total: 50 }));

  // Two cases whose saves cannot reach the server are kept and arrive once it is back.
  await page.route('**/api/experiments/main/integrated-response', (route) => route.abort('internetdisconnected'));
  for (let n = 23; n <= 24; n++) await answerMainCase(page, texts, n);
  await runUntil(page, () => page.getByTestId('save-failed').isVisible(), 'the unsaved notice', 200);
  expect(storedCases(p)).toHaveLength(22);
  // A reload while they are still unsaved keeps them: the page comes back at case 25 and sends them once the server is reachable.
  await page.reload();
  await runUntil(page, async () => (await page.locator('.case-progress h1').count()) > 0, 'the case screen after a reload with unsaved cases');
  expect(await page.locator('.case-progress h1').innerText()).toBe(fill(texts.main.remaining, { remaining: 26, done: 24, total: 50 }));
  expect(storedCases(p)).toHaveLength(22);
  await page.unroute('**/api/experiments/main/integrated-response');

  for (let n = 25; n <= 50; n++) await answerMainCase(page, texts, n);
  await runUntil(page, () => page.getByTestId('main-summary').isVisible(), 'the completion summary', 400);
  await page.getByRole('button', { name: texts.main.complete.toPostSurvey }).click();
  await page.waitForURL('**/experiment/post-survey-intro');
  await page.getByRole('heading', { name: texts.postSurveyIntro.title }).waitFor();

  const rows = storedCases(p);
  expect(rows.map((r) => r.case_number)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
  for (const r of rows) {
    expect([0, 0.25, 0.5, 0.75, 1]).toContain(r.alignment_alpha);
    expect(r.explanation_kind).toBe('human_aligned');
    expect(r.user_model_identifier).toBeTruthy();
    expect(r.shown!.length).toBeGreaterThan(5);
    expect(r.ai!.length).toBeGreaterThan(5);
  }
  // The counterbalanced schedule: each level 10 times.
  for (const level of [0, 0.25, 0.5, 0.75, 1]) expect(rows.filter((r) => r.alignment_alpha === level)).toHaveLength(10);
  const attempts = d1Rows<{ correct_count: number; passed: number }>(`select correct_count, passed from understanding_test_attempts where session_id = '${p.id}' order by attempt_number`);
  expect(attempts).toEqual([
    { correct_count: 4, passed: 0 },
    { correct_count: 5, passed: 1 },
  ]);
}

describe('main experiment', () => {
  it('in Japanese on a desktop: tutorial, a failed then passed test, 50 cases through two reloads, the second with two unsaved answers, then the post-survey intro', async () => {
    const p = await participantReadyForMain('compas');
    const page = await session.newPage({ width: 1280, height: 800 });
    await mainJourney(p, page, ja);
    await page.context().close();
  }, 600_000);

  it('in English on a phone, for another dataset', async () => {
    const p = await participantReadyForMain('adult_income');
    const page = await session.newPage({ width: 390, height: 844 });
    await mainJourney(p, page, en);
    await page.context().close();
  }, 600_000);
});

describe('main experiment, off the main path', () => {
  it('sends a participant without a finished pre-experiment to /, saying why, unless debug is set', async () => {
    const p = await makeParticipant('speed_dating');
    const page = await session.newPage({ width: 390, height: 844 });
    await adoptParticipant(page, p, 'ja');
    await page.goto(`${inject('baseUrl')}/experiment/main`);
    await page.waitForURL((url) => url.pathname === '/');
    await page.getByTestId('sent-back').waitFor();
    await page.goto(`${inject('baseUrl')}/experiment/main?debug=true`);
    await page.getByRole('button', { name: ja.main.tutorial.start }).waitFor();
    await page.context().close();
  }, 120_000);

  it.each(LANGUAGES_AND_SCREENS)('says so in %s at %i px when every place filled up after the participant joined (the start refused study_full)', async (language, width, height) => {
    const p = await participantReadyForMain('compas');
    const page = await session.newPage({ width, height });
    await adoptParticipant(page, p, language);
    // Quotas set later and filled meanwhile: the server refuses the main start, nothing written
    // (test/worker/recruitment.test.ts drives that refusal for real; real quotas here would close the
    // study these tests share). What is tried here is the page's answer to it.
    await page.route('**/api/experiments/main/start**', (route) =>
      route.fulfill({ status: 409, contentType: 'application/json', body: JSON.stringify({ detail: 'The study has all the participants it needs for compas', code: 'study_full' }) }),
    );
    await page.goto(`${inject('baseUrl')}/experiment/main`);
    const texts = language === 'ja' ? ja : en;
    const message = page.getByText(texts.main.studyFull);
    await message.waitFor();
    expect(await inViewport(message)).toBe(true);
    expect(await pageOverflow(page)).toBeLessThanOrEqual(0);
    if (SCREENSHOTS) await page.screenshot({ path: `${SCREENSHOTS}/main-study-full-${language}-${width}.png`, fullPage: true });
    await page.context().close();
  });

  it('shows the failure screen when neither explanation can be had, and goes on once one can', async () => {
    const p = await participantReadyForMain('compas');
    const page = await session.newPage({ width: 390, height: 844 });
    await page.clock.install();
    await adoptParticipant(page, p, 'en');
    await page.evaluate(() => {
      sessionStorage.setItem('main_experiment_tutorial_done', 'true');
      sessionStorage.setItem('main_experiment_understanding_test_passed', 'true');
    });
    await page.goto(`${inject('baseUrl')}/experiment/main`);
    await page.getByRole('button', { name: en.main.start, exact: true }).click();
    const failing = ['**/api/human-aligned-explanation', '**/api/experiments/explanations/**'];
    for (const url of failing) await page.route(url, (route) => route.fulfill({ status: 503, contentType: 'application/json', body: '{"detail":"model store down"}' }));
    await judge(page, page, en, 1, 3);
    const failure = page.getByText(en.main.explanationFailed);
    await runUntil(page, () => failure.isVisible(), 'the failure screen');
    expect(await page.getByRole('button', { name: en.main.resumeFromHere }).isVisible()).toBe(true);
    expect(await page.getByRole('button', { name: en.main.reload }).isVisible()).toBe(true);
    // Only the AI-only route comes back: the case goes on with what the server serves for it, the
    // participant's condition's human-aligned explanation (the route a page asks decides nothing).
    await page.unroute(failing[1]!);
    await page.getByRole('button', { name: en.main.retryExplanation }).click();
    await runUntil(page, () => page.getByTestId('ai-prediction').isVisible(), 'the fallback explanation');
    await page.getByRole('button', { name: en.main.toFinal }).click();
    await judge(page, page, en, 0, 4);
    const items = page.locator('.survey-item');
    for (let i = 0; i < 5; i++) await items.nth(i).locator('.radio').nth(2).click();
    await page.getByRole('button', { name: en.main.survey.submit }).click();
    await runUntil(page, async () => storedCases(p).length === 1, 'the save');
    expect(storedCases(p)[0]).toMatchObject({ case_number: 1, explanation_kind: 'human_aligned' });
    expect(storedCases(p)[0]!.user_model_identifier).toBeTruthy();
    await page.context().close();
  }, 120_000);
});
