import type { Locator, Page } from 'playwright-core';
import { describe, expect, inject, it } from 'vitest';
import en from '../../web/i18n/en.json';
import ja from '../../web/i18n/ja.json';
import { answeredQuestions, postSurvey, type AnsweredQuestion, type SectionId } from '../../worker/schemas/post-survey';
import { studyCodes } from '../../worker/study-codes';
import { pageOverflow, useBrowser } from './browser';

const SCREENSHOTS = process.env.XDL_SCREENSHOT_DIR;
import { adoptParticipant, d1Rows, makeParticipant, participantDoneWithMain } from './participants';

const session = useBrowser();
type Texts = typeof ja;

const panel = (page: Page) => page.locator('.survey-section');

/** Answers one question through the screen, as a participant would (keyboard-free clicks and typing). */
async function answer(page: Page, q: AnsweredQuestion, lang: 'ja' | 'en') {
  const box = panel(page).locator(`[data-question="${q.name}"]`);
  // In the middle of the screen, clear of the sticky bars at its top and bottom.
  await box.evaluate((el) => el.scrollIntoView({ block: 'center' }));
  switch (q.kind) {
    case 'number':
      return box.locator('input').fill('34');
    case 'radio':
      return box.locator('.radio').nth(1).click();
    case 'scale':
      return box.locator('.segment').nth(q.max === 7 ? 5 : 3).click();
    case 'text':
      return q.optional ? undefined : box.locator('textarea').fill(lang === 'ja' ? 'とくになし' : 'nothing in particular');
    case 'multiselect':
      return box.locator('.checkbox').first().click();
  }
}

async function answerSection(page: Page, id: SectionId, lang: 'ja' | 'en', skip: (q: AnsweredQuestion) => boolean = () => false) {
  const section = postSurvey.sections.find((s) => s.id === id)!;
  for (const q of answeredQuestions(section)) if (!skip(q)) await answer(page, q, lang);
}

const buttonNamed = (page: Page, name: string): Locator => page.getByRole('button', { name, exact: true });

async function completeJourney(page: Page, texts: Texts, id: string) {
  await page.waitForURL('**/experiment/complete');
  expect(await page.getByTestId('completion-code').innerText()).toBe(studyCodes.completionCode);
  expect(await page.getByTestId('completion-participant-id').innerText()).toBe(id);
  // The participant's own code, the one the export carries for matching the submission.
  const [stored] = d1Rows<{ code: string }>(`select completion_verification_code as code from sessions where session_id = '${id}'`);
  expect(stored!.code).toMatch(/^[0-9A-F]{10}$/);
  expect(await page.getByTestId('completion-verification-code').innerText()).toBe(stored!.code);
  await page.getByRole('heading', { name: texts.complete.title }).waitFor();
  const rows = d1Rows<{ experiment_rating: number; current_phase: string }>(
    `select p.experiment_rating, s.current_phase from post_surveys p join sessions s on s.session_id = p.session_id where p.session_id = '${id}'`,
  );
  expect(rows).toEqual([{ experiment_rating: 6, current_phase: 'completed' }]);
}

describe('post-survey', () => {
  it('in Japanese: the spec’s messages for wrong answers, a reload keeps the answers, and submit leads to the completion code', async () => {
    const p = await participantDoneWithMain('compas');
    const page = await session.newPage({ width: 1280, height: 800 });
    await adoptParticipant(page, p, 'ja');
    await page.goto(`${inject('baseUrl')}/experiment/post-survey`);
    await page.getByRole('heading', { name: ja.postSurvey.title }).waitFor();

    // A wrong age shows the spec's message at once, and next stays disabled until the section is complete.
    const age = panel(page).locator('[data-question="age"] input');
    await age.fill('17');
    expect(await panel(page).locator('[data-question="age"] .field-error').innerText()).toBe('年齢は18以上の値を入力してください');
    await age.fill('abc');
    expect(await panel(page).locator('[data-question="age"] .field-error').innerText()).toBe('年齢は数値で入力してください');
    // Next stays pressable while the section is incomplete (a press shows what is missing), marked as not yet ready.
    expect(await buttonNamed(page, ja.postSurvey.next).isDisabled()).toBe(false);
    expect(await buttonNamed(page, ja.postSurvey.next).getAttribute('data-incomplete')).toBe('');
    await answerSection(page, 'demographics', 'ja');
    expect(await page.getByTestId('section-counter').innerText()).toBe(ja.postSurvey.sectionCounter.replace('{{answered}}', '8').replace('{{required}}', '8'));
    await buttonNamed(page, ja.postSurvey.next).click();

    // The benevolent section explains the adjustment with one of the participant's own cases.
    await page.getByTestId('adjustment-example').waitFor();
    expect(await page.getByTestId('adjustment-example').getAttribute('data-own')).toBe('true');
    const feelings = panel(page).locator('[data-question="initial_reaction_feelings"] textarea');
    await feelings.fill('あ'.repeat(801));
    expect(await panel(page).locator('[data-question="initial_reaction_feelings"] .field-error').innerText()).toBe(
      `${postSurvey.sections[1]!.questions.find((q) => q.name === 'initial_reaction_feelings')!.label.ja}は800文字以内で入力してください`,
    );
    expect(await panel(page).locator('[data-question="initial_reaction_feelings"] .counter').innerText()).toBe('801/800');
    await answerSection(page, 'benevolent', 'ja', (q) => q.name.startsWith('disclosure_'));

    // A reload in the middle of the form loses nothing.
    await page.reload();
    await page.getByRole('heading', { name: ja.postSurvey.title }).waitFor();
    expect(await panel(page).locator('[data-question="age"] input').inputValue()).toBe('34');
    await page.getByRole('tab', { name: /2\./ }).click();
    expect(await panel(page).locator('[data-question="initial_reaction_feelings"] textarea').inputValue()).toBe('とくになし');
    // The acceptability ratings come back as chips beside the disclosure questions.
    expect(await panel(page).getByTestId('previous-answers').count()).toBe(4);
    await answerSection(page, 'benevolent', 'ja', (q) => !q.name.startsWith('disclosure_'));
    await buttonNamed(page, ja.postSurvey.next).click();
    await answerSection(page, 'bigfive', 'ja');
    await buttonNamed(page, ja.postSurvey.next).click();
    await answerSection(page, 'locus', 'ja');
    await buttonNamed(page, ja.postSurvey.next).click();
    await answerSection(page, 'cognition', 'ja');
    await buttonNamed(page, ja.postSurvey.submit).click();
    await page.getByRole('heading', { name: ja.postSurvey.thanksTitle }).waitFor();
    await completeJourney(page, ja, p.id);
    await page.context().close();
  }, 300_000);

  it('in English on a phone: a complete survey submits; a second submit counts as done', async () => {
    const p = await participantDoneWithMain('adult_income');
    const page = await session.newPage({ width: 390, height: 844 });
    // Starting the survey asks nothing that answers 404 (it used to read the answers to learn whether any were stored).
    const notFound: string[] = [];
    page.on('response', (res) => {
      if (res.status() === 404) notFound.push(res.url());
    });
    await adoptParticipant(page, p, 'en');
    await page.goto(`${inject('baseUrl')}/experiment/post-survey`);
    await page.getByRole('heading', { name: en.postSurvey.title }).waitFor();
    expect(notFound).toEqual([]);
    for (const [i, s] of postSurvey.sections.entries()) {
      await answerSection(page, s.id, 'en');
      const overflow = await pageOverflow(page);
      expect(overflow, `section ${s.id} overflows`).toBeLessThanOrEqual(0);
      if (i < postSurvey.sections.length - 1) await buttonNamed(page, en.postSurvey.next).click();
    }
    // A second tab opened on the same finished draft, before the first one submits.
    const second = await page.context().newPage();
    await second.setViewportSize({ width: 390, height: 844 });
    await second.goto(`${inject('baseUrl')}/experiment/post-survey`);
    await second.getByRole('heading', { name: en.postSurvey.title }).waitFor();
    await buttonNamed(page, en.postSurvey.submit).click();
    await completeJourney(page, en, p.id);
    // Its submit is the 409 that counts as done, and leads to the completion page too.
    await second.getByRole('tab', { name: /5\./ }).click();
    await buttonNamed(second, en.postSurvey.submit).click();
    await second.getByText(en.postSurvey.alreadyAnswered).waitFor();
    await second.waitForURL('**/experiment/complete');
    // Back on the survey once it is stored: the completion page, never the answers.
    await page.goto(`${inject('baseUrl')}/experiment/post-survey`);
    await page.waitForURL('**/experiment/complete');
    // The entry page knows the participation is complete, not in progress, and leads to the codes.
    await page.goto(`${inject('baseUrl')}/`);
    const ongoing = page.getByTestId('ongoing-participation');
    await ongoing.getByRole('heading', { name: en.entry.completedTitle }).waitFor();
    if (SCREENSHOTS) await page.screenshot({ path: `${SCREENSHOTS}/entry-completed-en-390.png`, fullPage: true });
    await ongoing.getByRole('button', { name: en.resume.toCompletion }).click();
    await page.waitForURL('**/experiment/complete');
    await page.context().close();
  }, 300_000);

  it('helps with what is missing: a press shows the first missing item, only passed sections are marked, each message names its question, and the list follows the answers', async () => {
    const inView = (locator: Locator) => locator.evaluate((el) => {
      const box = el.getBoundingClientRect();
      return box.top >= 0 && box.bottom <= window.innerHeight;
    });
    // On a phone, in English: next with the age missing.
    const p = await participantDoneWithMain('speed_dating');
    const phone = await session.newPage({ width: 390, height: 844 });
    await adoptParticipant(phone, p, 'en');
    await phone.goto(`${inject('baseUrl')}/experiment/post-survey`);
    await phone.getByRole('heading', { name: en.postSurvey.title }).waitFor();
    await answerSection(phone, 'demographics', 'en', (q) => q.name === 'age');
    await buttonNamed(phone, en.postSurvey.next).click();
    const age = panel(phone).locator('[data-question="age"]');
    await age.locator('.field-error').waitFor();
    expect(await age.locator('.field-error').innerText()).toBe('Age is required');
    await expect.poll(() => inView(age)).toBe(true);
    expect(await phone.getByRole('tab', { selected: true }).innerText()).toContain('1.');
    // Answered, one tap goes on.
    await age.locator('input').fill('41');
    await buttonNamed(phone, en.postSurvey.next).click();
    await expect.poll(() => phone.getByRole('tab', { selected: true }).innerText()).toContain('2.');
    // A section opened for the first time marks nothing.
    expect(await panel(phone).locator('.field-error').count()).toBe(0);
    await phone.context().close();

    // On a desktop, in Japanese: straight to the last section, submitted with the others unanswered.
    const q = await participantDoneWithMain('compas');
    const page = await session.newPage({ width: 1280, height: 800 });
    await adoptParticipant(page, q, 'ja');
    await page.goto(`${inject('baseUrl')}/experiment/post-survey`);
    await page.getByRole('heading', { name: ja.postSurvey.title }).waitFor();
    await page.getByRole('tab', { name: /5\./ }).click();
    await answerSection(page, 'cognition', 'ja');
    await buttonNamed(page, ja.postSurvey.submit).click();
    const banner = page.getByTestId('incomplete-sections');
    await banner.waitFor();
    const title = (id: SectionId) => postSurvey.sections.find((s) => s.id === id)!.title.ja;
    expect(await banner.innerText()).toContain(['demographics', 'benevolent', 'bigfive', 'locus'].map((id) => title(id as SectionId)).join('、'));
    // Taken to the first one (left for the last section, so passed: its missing items marked), the first of them in view.
    expect(await page.getByRole('tab', { selected: true }).innerText()).toContain('1.');
    expect(await panel(page).locator('.field-error').count()).toBeGreaterThan(0);
    await expect.poll(() => inView(panel(page).locator('[data-question="age"]'))).toBe(true);
    await answerSection(page, 'demographics', 'ja');
    // The list follows the answers: the section answered leaves it, without a reload.
    await expect.poll(() => banner.innerText()).not.toContain(title('demographics'));
    // A section never opened before is not marked, though the list names it.
    await page.getByRole('tab', { name: /3\./ }).click();
    expect(await panel(page).locator('.field-error').count()).toBe(0);
    // Passing the second section with its reasons empty: each message names its own question.
    await page.getByRole('tab', { name: /2\./ }).click();
    await answerSection(page, 'benevolent', 'ja', (item) => item.kind === 'text');
    await page.getByRole('tab', { name: /3\./ }).click();
    await page.getByRole('tab', { name: /2\./ }).click();
    const messages = await panel(page).getByTestId('section-errors').locator('li').allInnerTexts();
    expect(messages.length).toBeGreaterThan(3);
    expect(new Set(messages).size).toBe(messages.length);
    if (process.env.XDL_SCREENSHOT_DIR) await page.screenshot({ path: `${process.env.XDL_SCREENSHOT_DIR}/post-survey-missing-ja-1280.png` });
    // The reasons now (a second click on a checkbox would clear it).
    await answerSection(page, 'benevolent', 'ja', (item) => item.kind !== 'text');
    for (const [n, id] of [[3, 'bigfive'], [4, 'locus']] as const) {
      await page.getByRole('tab', { name: new RegExp(`${n}\\.`) }).click();
      await answerSection(page, id, 'ja');
    }
    await banner.waitFor({ state: 'detached' });
    await page.getByRole('tab', { name: /5\./ }).click();
    await buttonNamed(page, ja.postSurvey.submit).click();
    await page.getByRole('heading', { name: ja.postSurvey.thanksTitle }).waitFor();
    await page.context().close();
  }, 300_000);

  it('sends a participant who opens it, or the main experiment, too early back to where they stopped, saying where and why, in their language', async () => {
    const fill = (text: string, values: Record<string, string | number>) => Object.entries(values).reduce((s, [k, v]) => s.replaceAll(`{{${k}}}`, String(v)), text);
    for (const [lang, width, height, texts] of [
      ['en', 390, 844, en],
      ['ja', 1280, 800, ja],
    ] as const) {
      const p = await makeParticipant('compas');
      const page = await session.newPage({ width, height });
      const refusals: string[] = [];
      page.on('response', (r) => {
        if (r.status() >= 400) refusals.push(`${r.status()} ${r.url()}`);
      });
      await adoptParticipant(page, p, lang);
      // The main experiment sends early visitors to / (part 2 §2.1), the post-survey to where they are.
      for (const [opened, reason, landing] of [
        ['/experiment/post-survey', 'post_survey_not_yet', '/experiment/pre'],
        ['/experiment/main', 'main_not_yet', '/'],
      ] as const) {
        await page.goto(`${inject('baseUrl')}${opened}`);
        await page.waitForURL((url) => url.pathname === landing);
        const notice = page.getByTestId('sent-back');
        await notice.waitFor();
        expect(await notice.locator('p').innerText()).toBe(fill(texts.sentBack[reason], { total: 200, phase: texts.progress.phases.pre_experiment }));
        expect(await page.getByRole('heading', { name: texts.postSurvey.title, exact: true }).count()).toBe(0);
        expect(await pageOverflow(page)).toBeLessThanOrEqual(0);
        if (process.env.XDL_SCREENSHOT_DIR) await page.screenshot({ path: `${process.env.XDL_SCREENSHOT_DIR}/sent-back-${reason}-${lang}-${width}.png` });
        if (landing === '/') {
          // The way on: the pre-experiment, where they are.
          await notice.getByRole('link', { name: texts.sentBack.continue }).click();
          await page.waitForURL('**/experiment/pre');
        }
      }
      expect(await page.locator('html').getAttribute('lang')).toBe(lang);
      // Nothing was refused on the way: the pages asked where the participant is before asking to start.
      expect(refusals).toEqual([]);
      await page.context().close();
    }
  });
});

describe('completion page before completion', () => {
  it('shows completion only to a completed participant: anyone else is told where they are and led there (390 ja, 1280 en)', async () => {
    for (const [lang, width, height, texts] of [
      ['ja', 390, 844, ja],
      ['en', 1280, 800, en],
    ] as const) {
      // Registered, not consented.
      const p = await makeParticipant('compas', { consent: false });
      const page = await session.newPage({ width, height });
      await adoptParticipant(page, p, lang);
      await page.goto(`${inject('baseUrl')}/experiment/complete`);
      const notice = page.getByTestId('completion-incomplete');
      await notice.waitFor();
      expect(await notice.getAttribute('data-phase')).toBe('consent');
      expect(await notice.innerText()).toContain(texts.complete.phases.consent);
      expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe(texts.complete.notYetTitle);
      expect(await page.getByText(texts.complete.title, { exact: true }).count()).toBe(0);
      expect(await page.locator('.progress-bar, [role="progressbar"]').count()).toBe(0);
      expect(await pageOverflow(page)).toBeLessThanOrEqual(0);
      if (process.env.XDL_SCREENSHOT_DIR) await page.screenshot({ path: `${process.env.XDL_SCREENSHOT_DIR}/complete-not-yet-${lang}-${width}.png`, fullPage: true });
      await page.getByRole('link', { name: texts.complete.continue }).click();
      await page.waitForURL('**/experiment/consent');
      await page.context().close();
    }
  });
});
