/**
 * Where a participant's eyes and thumb need things, on a phone (390×844) and a desktop (1280×800),
 * in both languages, for every dataset: each screen's main action is on the first screen and not
 * covered; at the final judgement the AI's prediction stays in view beside the answer; step names
 * and chart labels are whole; the chart's centre line never runs through a label.
 */
import type { Locator, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import en from '../../web/i18n/en.json';
import ja from '../../web/i18n/ja.json';
import { DATASET_TYPES, LANGUAGES, type DatasetType } from '../../worker/schemas/study-config';
import { datasetOf } from '../../worker/schemas/datasets';
import { useBrowser } from './browser';
import { adoptParticipant, makeParticipant, participantReadyForMain, startMainPrepared } from './participants';

const session = useBrowser();
const SCREENSHOTS = process.env.XDL_SCREENSHOT_DIR;
const texts = { ja, en } as const;
const SIZES = [
  [390, 844],
  [1280, 800],
] as const;

/**
 * Why `target` is not fully usable on the screen as it stands (without scrolling), or null when it
 * is: wholly inside the viewport and, at its centre, not covered by anything else.
 */
async function notInView(target: Locator): Promise<string | null> {
  return target.evaluate((el) => {
    const rect = el.getBoundingClientRect();
    const { clientWidth, clientHeight } = document.documentElement;
    if (rect.height === 0 || rect.width === 0) return 'not displayed';
    if (rect.top < 0 || rect.left < 0 || rect.bottom > clientHeight + 0.5 || rect.right > clientWidth + 0.5)
      return `at ${Math.round(rect.left)},${Math.round(rect.top)}–${Math.round(rect.right)},${Math.round(rect.bottom)} outside ${clientWidth}×${clientHeight}`;
    const hit = document.elementFromPoint(rect.left + rect.width / 2, rect.top + rect.height / 2);
    if (!hit || !(el === hit || el.contains(hit))) return `covered by ${hit?.tagName.toLowerCase()}.${hit?.className}`;
    return null;
  });
}

/** Texts cut short by an ellipsis (CSS text-overflow or a shortened label) inside `scope`. */
async function truncated(scope: Locator): Promise<string[]> {
  return scope.evaluate((root) => {
    const out: string[] = [];
    for (const el of Array.from(root.querySelectorAll<HTMLElement>('*'))) {
      const style = getComputedStyle(el);
      if (style.display === 'none' || style.visibility === 'hidden' || el.closest('.visually-hidden')) continue;
      if (el.scrollWidth > el.clientWidth + 0.5 && style.overflowX === 'hidden') out.push(`cut: "${el.textContent}"`);
    }
    for (const text of Array.from(root.querySelectorAll('svg text, .explanation-bar-label'))) if ((text.textContent ?? '').includes('…')) out.push(`shortened: "${text.textContent}"`);
    return out;
  });
}

/** Problems of the drawn explanation chart: no bars, a label or bar reaching past the chart, or the centre mark through a label. */
async function chartProblems(chart: Locator): Promise<string[]> {
  return chart.evaluate((figure) => {
    const rows = Array.from(figure.querySelectorAll('.explanation-row'));
    if (rows.length === 0) return ['no chart drawn'];
    const box = figure.getBoundingClientRect();
    const out: string[] = [];
    const heights = new Set(rows.map((row) => Math.round(row.getBoundingClientRect().height)));
    if (heights.size > 1) out.push(`rows of ${[...heights].join(', ')} px: the bars lose their rhythm`);
    for (const row of rows) {
      const label = row.querySelector('.explanation-bar-label')!;
      const text = label.textContent ?? '';
      const rect = label.getBoundingClientRect();
      if (rect.left < box.left - 0.5 || rect.right > box.right + 0.5) out.push(`label "${text}" reaches ${Math.round(rect.right - box.right)} px past the chart`);
      const track = row.querySelector('.explanation-track')!.getBoundingClientRect();
      // The centre mark is drawn on the track, which lies below the label: it never runs through it.
      if (track.top < rect.bottom - 0.5) out.push(`the centre mark runs through "${text}"`);
      const bar = row.querySelector('.explanation-bar')?.getBoundingClientRect();
      if (bar && (bar.left < track.left - 0.5 || bar.right > track.right + 0.5)) out.push(`the bar of "${text}" leaves its track`);
    }
    return out;
  });
}

describe.each(DATASET_TYPES)('%s', (dataset: DatasetType) => {
  // One participant per screen size: each test leaves its case under way, and the server resumes such a case past the intro.
  const ready = {} as Record<string, Awaited<ReturnType<typeof participantReadyForMain>>>;
  beforeAll(async () => {
    for (const language of LANGUAGES) for (const [width] of SIZES) ready[`${language}-${width}`] = await participantReadyForMain(dataset);
  });

  it.each(LANGUAGES.flatMap((language) => SIZES.map(([width, height]) => [language, width, height] as const)))('in %s at %i×%i', async (language, width, height) => {
    const t = texts[language];
    const name = `${dataset}-${language}-${width}`;
    const shot = async (page: Page, screen: string) => {
      if (SCREENSHOTS) await page.screenshot({ path: `${SCREENSHOTS}/${screen}-${name}.png` });
    };
    const page = await session.newPage({ width, height });
    const base = session.baseUrl();

    // Consent (a participant who has not consented yet): the agree button on the first screen.
    await adoptParticipant(page, await makeParticipant(dataset, { consent: false }), language);
    // The entry page names the offered tasks as their definitions do.
    await page.goto(`${base}/`);
    expect(await page.getByTestId('entry-lead').innerText()).toContain(datasetOf(dataset).texts[language].name);
    await shot(page, 'entry');
    await page.goto(`${base}/experiment/consent`);
    await page.getByRole('heading', { name: t.consent.title, level: 1 }).waitFor();
    await shot(page, 'consent');
    expect(await notInView(page.getByRole('button', { name: t.consent.agree })), 'consent: agree').toBeNull();

    // Pre-experiment intro: the practice button (the next thing to do) on the first screen.
    await adoptParticipant(page, await makeParticipant(dataset), language);
    await page.goto(`${base}/experiment/pre`);
    await page.getByRole('heading', { name: t.pre.title, level: 1 }).waitFor();
    await page.locator('.case-card h2').waitFor();
    await shot(page, 'pre-intro');
    expect(await notInView(page.getByRole('button', { name: t.pre.tutorialStart })), 'pre intro: practice').toBeNull();
    expect(await notInView(page.getByRole('button', { name: t.pre.start })), 'pre intro: start').toBeNull();

    // Main intro: tutorial, understanding test and start, in that order, on the first screen (part 2 §2.1).
    const p = ready[`${language}-${width}`]!;
    await adoptParticipant(page, p, language);
    await page.goto(`${base}/experiment/main`);
    await page.getByRole('heading', { name: t.main.title, level: 1 }).waitFor();
    await shot(page, 'main-intro');
    const actions = page.locator('.intro-actions button');
    expect(await actions.allInnerTexts()).toEqual([t.main.tutorial.start, t.main.test.start, t.main.start]);
    for (const label of [t.main.tutorial.start, t.main.test.start, t.main.start]) {
      expect(await notInView(page.getByRole('button', { name: label, exact: true })), `main intro: ${label}`).toBeNull();
    }
    expect(await page.getByRole('button', { name: t.main.test.start }).isEnabled(), 'the test can be taken before the tutorial').toBe(true);
    expect(await page.getByRole('button', { name: t.main.start, exact: true }).isDisabled()).toBe(true);

    // The tutorial's practice case keeps the AI's answer beside the final judgement too.
    await page.getByRole('button', { name: t.main.tutorial.start }).click();
    const practice = page.locator('.tutorial-dialog');
    await practice.locator('.case-card h2').waitFor();
    await practice.locator('.judgement-prediction .radio').nth(1).click();
    await practice.locator('.judgement-confidence .radio').nth(1).click();
    await practice.getByRole('button', { name: t.judgement.submit, exact: true }).click();
    await practice.getByRole('button', { name: t.main.toFinal }).click();
    const practiceReminder = practice.getByTestId('final-ai-reminder');
    await practiceReminder.waitFor();
    await shot(page, 'tutorial-step3');
    expect(await notInView(practiceReminder.getByTestId('ai-prediction')), 'tutorial step 3: the AI\'s prediction').toBeNull();
    expect(await notInView(practice.getByRole('button', { name: t.judgement.submit, exact: true })), 'tutorial step 3: answer').toBeNull();
    await practice.getByRole('button', { name: t.common.close }).click();
    await practice.waitFor({ state: 'detached' });

    // The understanding test's check button in view with the question.
    await page.getByRole('button', { name: t.main.test.start }).click();
    const test = page.locator('.understanding-test');
    await test.locator('.test-question').waitFor();
    await shot(page, 'understanding-test');
    expect(await notInView(test.getByRole('button', { name: t.main.test.check })), 'understanding test: check').toBeNull();
    await page.keyboard.press('Escape');
    await test.waitFor({ state: 'detached' });

    // One case, tutorial and test done in this tab.
    await startMainPrepared(page, t.main.start);
    const steps = page.locator('.step-indicator');
    const current = () => page.locator('.step-indicator li[aria-current="step"] .step-name');

    // Step 1: the case and its answer.
    await page.locator('.case-card h2').waitFor();
    expect(await truncated(steps), 'step 1 names').toEqual([]);
    expect(await current().innerText()).toBe(t.main.steps.initial);
    expect(await notInView(page.getByRole('button', { name: t.judgement.submit, exact: true })), 'step 1: answer').toBeNull();
    await page.locator('.judgement-prediction .radio').nth(0).click();
    await page.locator('.judgement-confidence .radio').nth(2).click();
    await page.getByRole('button', { name: t.judgement.submit, exact: true }).click();

    // Step 2: the explanation, whole labels, and the way on in view.
    const panel = page.locator('.explanation-panel');
    await panel.getByTestId('ai-prediction').waitFor();
    await shot(page, 'main-step2');
    expect(await current().innerText()).toBe(t.main.steps.explanation);
    expect(await truncated(steps), 'step 2 names').toEqual([]);
    expect(await truncated(panel.locator('.explanation-chart')), 'chart labels').toEqual([]);
    expect(await chartProblems(panel.locator('.explanation-chart')), 'chart drawing').toEqual([]);
    expect(await notInView(page.getByRole('button', { name: t.main.toFinal })), 'step 2: to the final judgement').toBeNull();
    const predicted = await panel.getByTestId('ai-prediction').innerText();
    await page.getByRole('button', { name: t.main.toFinal }).click();

    // Step 3: the AI's prediction beside the answer, at the top of the step and scrolled to its end.
    const reminder = page.getByTestId('final-ai-reminder');
    await reminder.waitFor();
    expect(await current().innerText()).toBe(t.main.steps.final);
    expect(await truncated(steps), 'step 3 names').toEqual([]);
    expect(await reminder.getByTestId('ai-prediction').innerText()).toBe(predicted);
    expect(await reminder.getByTestId('accuracy-note').innerText()).toBe(await panel.getByTestId('accuracy-note').innerText());
    await shot(page, 'main-step3');
    for (const where of ['top', 'bottom'] as const) {
      if (where === 'bottom') await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
      expect(await notInView(reminder.getByTestId('ai-prediction')), `step 3 (${where}): the AI's prediction`).toBeNull();
      // The participant's own initial judgement too: on a phone as a line atop the answer bar (issue #59, point 4), on a laptop beside the form.
      const phone = page.viewportSize()!.width <= 760;
      if (phone) expect(await page.getByTestId('initial-reminder').innerText()).toContain(t.main.initialTitle);
      if (phone || where === 'top') expect(await notInView(page.getByTestId(phone ? 'initial-reminder' : 'initial-summary')), `step 3 (${where}): the initial judgement`).toBeNull();
      expect(await notInView(page.getByRole('button', { name: t.judgement.submit, exact: true })), `step 3 (${where}): answer`).toBeNull();
    }
    await page.locator('.answer-bar .judgement-prediction .radio').nth(1).click();
    await page.locator('.answer-bar .judgement-confidence .radio').nth(3).click();
    await page.getByRole('button', { name: t.judgement.submit, exact: true }).click();

    // Step 4: the five questions and their submit button in view once answered from the top.
    const items = page.locator('.survey-item');
    await items.first().waitFor();
    expect(await truncated(steps), 'step 4 names').toEqual([]);
    for (let i = 0; i < 5; i++) await items.nth(i).locator('.radio').nth(i).click();
    await page.evaluate(() => window.scrollTo(0, 0));
    await shot(page, 'main-step4');
    expect(await notInView(page.getByRole('button', { name: t.main.survey.submit })), 'step 4: submit').toBeNull();
    await page.context().close();
  });
});
