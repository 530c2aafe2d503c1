/**
 * Part 1's loose ends as a participant meets them: the practice on a phone, going back from
 * consent, and a final send that meets an answer the server refuses.
 */
import { describe, expect, inject, it } from 'vitest';
import en from '../../web/i18n/en.json';
import ja from '../../web/i18n/ja.json';
import { storageKeys } from '../../web/lib/storage-keys';
import { chooseEnglish, pageOverflow, useBrowser } from './browser';
import { adoptParticipant, answerThroughApi, makeParticipant, preCaseSet } from './participants';
import { DATASETS } from '../../worker/schemas/datasets';

const session = useBrowser();

const tutorialHeading = (n: number) => ja.pre.tutorialCase.replace('{{n}}', String(n)).replace('{{total}}', '2');

describe('practice on a small phone', () => {
  it('keeps the start disabled until done, shows a practice example, pauses 0.8 s and opens each case at the top', async () => {
    const p = await makeParticipant('speed_dating');
    const page = await session.newPage({ width: 390, height: 640 });
    await page.clock.install();
    await adoptParticipant(page, p, 'ja');
    await page.goto(`${session.baseUrl()}/experiment/pre`);
    const start = page.getByRole('button', { name: ja.pre.start });
    await start.waitFor();
    expect(await start.isDisabled()).toBe(true);
    expect(await page.getByText(ja.pre.tutorialRequired).isVisible()).toBe(true);

    // The example is a practice case, never the participant's own case 1.
    const example = page.locator('.pre-intro .case-card[data-case-id]');
    await example.waitFor();
    const [firstOwn] = await preCaseSet(p);
    expect(await example.getAttribute('data-case-id')).toMatch(/^tutorial_speed/);
    expect(await example.getAttribute('data-case-id')).not.toBe(firstOwn!.case_id);

    // A visible close.
    await page.getByRole('button', { name: ja.pre.tutorialStart }).click();
    const dialog = page.locator('.tutorial-dialog');
    await dialog.getByRole('button', { name: ja.common.close }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: ja.pre.tutorialStart }).click();

    const heading = dialog.locator('.case-card h2');
    const scroller = page.locator('.modal-scroll');
    await expect.poll(() => heading.innerText()).toBe(tutorialHeading(1));
    // Scroll down to the bottom of the first case, as a participant on a small screen does.
    expect(await scroller.evaluate((el) => (el.scrollTo(0, el.scrollHeight), el.scrollTop))).toBeGreaterThan(0);
    await dialog.locator('.judgement-prediction .radio').first().click();
    await dialog.locator('.judgement-confidence .radio').nth(2).click();
    // From here the page's clock moves only when the test moves it: the pause is exactly 300 + 800 ms.
    await page.clock.pauseAt(Date.now() + 1000);
    await dialog.getByRole('button', { name: ja.judgement.submit, exact: true }).click();
    await page.clock.runFor(300 + 799);
    await new Promise((r) => setTimeout(r, 300));
    expect(await heading.innerText()).toBe(tutorialHeading(1));
    await page.clock.runFor(1);
    await expect.poll(() => heading.innerText(), { timeout: 2000 }).toBe(tutorialHeading(2));
    expect(await scroller.evaluate((el) => el.scrollTop)).toBe(0);
    const box = await heading.boundingBox();
    expect(box && box.y >= 0 && box.y + box.height <= 640).toBe(true);

    await dialog.locator('.judgement-prediction .radio').nth(1).click();
    await dialog.locator('.judgement-confidence .radio').nth(4).click();
    await dialog.getByRole('button', { name: ja.judgement.submit, exact: true }).click();
    await page.clock.runFor(1100);
    await page.getByText(ja.pre.tutorialDone).waitFor({ timeout: 2000 });
    expect(await start.isDisabled()).toBe(false);
    await page.context().close();
  });
});

describe('the ID a newcomer notes down', () => {
  // Issue #59, point 1: the entry page asks the participant to note their ID; it stays the same
  // through a reload and a detour through the dataset selection, and is the ID they join with.
  it('is the same after a reload and after choosing a dataset, and is the one the participation starts with', async () => {
    const page = await session.newPage({ width: 390, height: 844 });
    await page.goto(`${session.baseUrl()}/`);
    const shown = async () => (await page.getByTestId('participant-id').innerText()).trim();
    const id = await shown();
    expect(id).toMatch(/^[0-9A-HJKMNP-Z]{8}$/);
    await page.reload();
    expect(await shown()).toBe(id);
    await page.getByRole('link', { name: ja.entry.selectionLink }).click();
    await page.waitForURL('**/experiment/selection');
    await page.locator('.dataset-card').first().click();
    await page.getByRole('button', { name: ja.selection.start }).click();
    await page.waitForURL('**/introduction');
    expect(await shown()).toBe(id);
    // Another ID only when asked for, and that one is kept in turn.
    await page.getByRole('button', { name: ja.entry.regenerate }).click();
    const other = await shown();
    expect(other).not.toBe(id);
    await page.reload();
    expect(await shown()).toBe(other);
    await page.getByRole('button', { name: ja.entry.start }).click();
    await page.waitForURL('**/experiment/consent');
    await page.getByText(ja.consent.participant.replace('{{id}}', other)).waitFor();
    await page.context().close();
  });
});

describe('a browser that holds no participant ID', () => {
  // Issue #59, point 5: each phase's page says it once, in the participant's words, and offers resuming by ID.
  it.each(['ja', 'en'] as const)('gets one message and resume by ID on the pre-experiment, main experiment and post-survey pages (%s, 390)', async (language) => {
    const t = language === 'ja' ? ja : en;
    const page = await session.newPage({ width: 390, height: 844 });
    await page.goto(`${session.baseUrl()}/`);
    if (language === 'en') await chooseEnglish(page);
    for (const route of ['/experiment/pre', '/experiment/main', '/experiment/post-survey']) {
      await page.goto(`${session.baseUrl()}${route}`);
      const here = page.getByTestId('no-participant');
      await here.waitFor();
      expect(await page.getByRole('alert').count(), route).toBe(1);
      expect(await here.getByRole('heading', { level: 1 }).innerText()).toBe(t.noParticipant.title);
      expect(await here.locator('.error-message').innerText()).toBe(route.endsWith('post-survey') ? t.postSurvey.noSession : t.noParticipant.text);
      expect(await here.getByRole('textbox').count(), `${route}: resume by ID`).toBe(1);
      expect(await here.getByRole('link', { name: t.noParticipant.home }).count()).toBe(1);
      expect(await pageOverflow(page)).toBeLessThanOrEqual(0);
      if (process.env.XDL_SCREENSHOT_DIR) await page.screenshot({ path: `${process.env.XDL_SCREENSHOT_DIR}/no-participant${route.replace(/\//g, '-')}-${language}-390.png`, fullPage: true });
    }
    await page.context().close();
  });
});

describe('back from consent', () => {
  it('offers to continue the same participant with the same dataset; a new ID is a deliberate second choice', async () => {
    const page = await session.newPage({ width: 390, height: 844 });
    await page.goto(`${session.baseUrl()}/?dataset=compas`);
    const id = (await page.getByTestId('participant-id').innerText()).trim();
    await page.getByRole('button', { name: ja.entry.start }).click();
    await page.waitForURL('**/experiment/consent');
    await page.getByText(ja.consent.participant.replace('{{id}}', id)).waitFor();

    await page.getByRole('button', { name: ja.consent.back }).click();
    await page.waitForURL('**/introduction');
    const ongoing = page.getByTestId('ongoing-participation');
    await ongoing.waitFor();
    expect(await ongoing.locator('.participant-id').innerText()).toBe(id);
    expect(await ongoing.innerText()).toContain(DATASETS.compas.texts.ja.name);
    expect(await page.getByTestId('participant-id').count()).toBe(0);

    await ongoing.getByRole('button', { name: ja.entry.continueOngoing }).click();
    await page.waitForURL('**/experiment/consent');
    await page.getByText(ja.consent.participant.replace('{{id}}', id)).waitFor();
    const info = (await (await fetch(`${inject('baseUrl')}/api/experiments/sessions/${id}`)).json()) as { dataset_type: string };
    expect(info.dataset_type).toBe('compas');

    await page.getByRole('button', { name: ja.consent.back }).click();
    await page.getByRole('button', { name: ja.entry.startOver }).click();
    const fresh = (await page.getByTestId('participant-id').innerText()).trim();
    expect(fresh).toMatch(/^[0-9A-HJKMNP-Z]{8}$/);
    expect(fresh).not.toBe(id);
    await page.context().close();
  });
});

describe('final send with a refused answer', () => {
  it('takes the refused answer out with its reason and still ends in completion', async () => {
    const p = await makeParticipant('adult_income');
    await answerThroughApi(p, 199);
    const page = await session.newPage();
    await adoptParticipant(page, p, 'en', { tutorialDone: true });
    // A saved answer for a case that is not in this participant's set: the server refuses it.
    await page.evaluate(
      ({ key }) =>
        localStorage.setItem(
          key,
          JSON.stringify([{ case_id: 'not_in_this_set_001', case_number: 1, prediction: 1, confidence: 3, response_time_ms: 900, answered_at: new Date().toISOString(), acked: false }]),
        ),
      { key: `${storageKeys.preResponsesPrefix}${p.id}` },
    );
    await page.goto(`${session.baseUrl()}/experiment/pre`);
    await page.locator('.case-card h2').waitFor();
    expect(await page.locator('.case-progress h1').innerText()).toBe(en.pre.remaining.replace('{{remaining}}', '1').replace('{{done}}', '199').replace('{{total}}', '200'));
    await page.getByTestId('refused-answers').getByText('not_in_this_set_001').waitFor();

    await page.locator('.judgement-prediction .radio').first().click();
    await page.locator('.judgement-confidence .radio').nth(3).click();
    await page.getByRole('button', { name: en.judgement.submit, exact: true }).click();
    await page.getByTestId('user-model-state').waitFor({ timeout: 30_000 });
    expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe(en.pre.completeTitle);
    expect(await page.getByTestId('refused-answers').innerText()).toContain('not_in_this_set_001');
    const saved = await page.evaluate((key) => localStorage.getItem(key) ?? '', `${storageKeys.preResponsesPrefix}${p.id}`);
    expect(saved).not.toContain('not_in_this_set_001');
    const info = (await (await fetch(`${inject('baseUrl')}/api/experiments/sessions/${p.id}`)).json()) as { pre_experiment_count: number };
    expect(info.pre_experiment_count).toBe(200);
    await page.context().close();
  });
});
