import { describe, expect, inject, it } from 'vitest';
import en from '../../web/i18n/en.json';
import ja from '../../web/i18n/ja.json';
import { studyCodes } from '../../worker/study-codes';
import { storageKeys } from '../../web/lib/storage-keys';
import { pageOverflow, pageStarted, useBrowser } from './browser';
import { adoptParticipant, d1Rows, mainThroughApi, participantDoneWithMain, postSurveyThroughApi, preThroughApi } from './participants';

const session = useBrowser();
const SCREENSHOTS = process.env.XDL_SCREENSHOT_DIR;
const PROLIFIC = { pid: '5f8e2c1a9b3d4e0012345678', study: '64a1b2c3d4e5f60012345678', session: 'e2e-session-1' };

describe('Prolific loop', () => {
  it('keeps the Prolific IDs from the study URL with the participant and ends with one button back to Prolific with the completion code (390×844, English)', async () => {
    const page = await session.newPage({ width: 390, height: 844 });
    await page.goto(`${inject('baseUrl')}/`);
    await pageStarted(page);
    await page.evaluate((key) => localStorage.setItem(key, 'en'), storageKeys.language);
    await page.goto(`${inject('baseUrl')}/?PROLIFIC_PID=${PROLIFIC.pid}&STUDY_ID=${PROLIFIC.study}&SESSION_ID=${PROLIFIC.session}`);
    await page.getByTestId('participant-id').waitFor();
    await page.getByRole('button', { name: en.entry.start }).click();
    await page.waitForURL('**/experiment/consent');
    const id = await page.evaluate((key) => localStorage.getItem(key), storageKeys.sessionId);
    expect(id).toMatch(/^[A-Z0-9]{8}$/);
    // A Prolific participant who does not wish to take part can return the study from here.
    await page.getByRole('link', { name: en.prolific.return }).waitFor();
    if (SCREENSHOTS) await page.screenshot({ path: `${SCREENSHOTS}/consent-prolific-en-390.png`, fullPage: true });
    // On a phone, as a thumb would: tap each item's text.
    for (const item of Object.values(en.consent.items)) {
      await page.getByText(item, { exact: true }).click();
      expect(await page.getByRole('checkbox', { name: item }).isChecked(), item).toBe(true);
    }
    await page.getByRole('button', { name: en.consent.agree }).click();
    await page.waitForURL('**/experiment/pre');
    expect(d1Rows(`select prolific_pid, prolific_study_id, prolific_session_id from participants where participant_code = '${id}'`)).toEqual([
      { prolific_pid: PROLIFIC.pid, prolific_study_id: PROLIFIC.study, prolific_session_id: PROLIFIC.session },
    ]);

    // The rest of the study through the API (its own screens have their own tests), then the completion page.
    const p = { id: id!, userId: 0, datasetType: 'compas' as const };
    const [row] = d1Rows<{ dataset_type: 'compas' }>(`select dataset_type from sessions where session_id = '${id}'`);
    p.datasetType = row!.dataset_type;
    await preThroughApi(p);
    await mainThroughApi(p);
    await postSurveyThroughApi(p);
    await page.goto(`${inject('baseUrl')}/experiment/complete`);
    const link = page.getByTestId('prolific-link');
    await link.waitFor();
    expect(await link.innerText()).toBe(en.prolific.complete);
    expect(await link.getAttribute('href')).toBe(`https://app.prolific.com/submissions/complete?cc=${studyCodes.completionCode}`);
    const box = await link.boundingBox();
    expect(box!.y + box!.height).toBeLessThanOrEqual(844);
    expect(await pageOverflow(page)).toBe(0);
    if (SCREENSHOTS) await page.screenshot({ path: `${SCREENSHOTS}/complete-prolific-en-390.png`, fullPage: true });
  });

  it('shows no Prolific button to a participant who came without Prolific', async () => {
    const p = await participantDoneWithMain('speed_dating');
    await postSurveyThroughApi(p);
    const page = await session.newPage({ width: 1280, height: 800 });
    await adoptParticipant(page, p, 'ja');
    await page.goto(`${inject('baseUrl')}/experiment/complete`);
    await page.getByTestId('completion-participant-id').waitFor();
    await page.waitForLoadState('networkidle');
    expect(await page.getByTestId('prolific-link').count()).toBe(0);
  });
});

describe('withdrawal', () => {
  it('from the completion page: a confirm dialog says what is deleted, then nothing of the participant is left (1280×800, Japanese)', async () => {
    const p = await participantDoneWithMain('adult_income');
    await postSurveyThroughApi(p);
    const page = await session.newPage({ width: 1280, height: 800 });
    await adoptParticipant(page, p, 'ja');
    await page.goto(`${inject('baseUrl')}/experiment/complete`);
    await page.getByRole('link', { name: ja.withdraw.link }).click();
    await page.waitForURL('**/withdraw?participant_id=*');
    expect(await page.locator('input[name="participant_id"]').inputValue()).toBe(p.id);
    for (const line of ja.withdraw.what) await page.getByText(line).waitFor();
    await page.getByRole('button', { name: ja.withdraw.button }).click();
    const dialog = page.getByRole('alertdialog');
    await dialog.getByText(ja.withdraw.confirmBody.replace('{{id}}', p.id)).waitFor();
    if (SCREENSHOTS) await page.screenshot({ path: `${SCREENSHOTS}/withdraw-confirm-ja-1280.png` });
    // Cancel keeps everything.
    await dialog.getByRole('button', { name: ja.withdraw.cancel }).click();
    expect(d1Rows(`select count(*) as n from pre_experiment_responses where session_id = '${p.id}'`)).toEqual([{ n: 200 }]);

    await page.getByRole('button', { name: ja.withdraw.button }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: ja.withdraw.confirm }).click();
    await page.getByTestId('withdrawal-done').waitFor();
    for (const table of ['participants', 'sessions', 'consent_records', 'pre_experiment_responses', 'main_experiment_responses', 'post_surveys', 'user_models', 'dataset_assignments', 'case_set_items']) {
      const column = table === 'participants' ? 'participant_code' : 'session_id';
      expect(d1Rows(`select count(*) as n from ${table} where ${column} = '${p.id}'`), table).toEqual([{ n: 0 }]);
    }
    expect(await page.evaluate((key) => localStorage.getItem(key), storageKeys.sessionId)).toBeNull();
    expect(await page.getByTestId('prolific-link').count()).toBe(0);
  });

  it('lays out the withdrawal and screened-out pages without overflow, the withdraw button on screen, at 390×844 in both languages', async () => {
    for (const [lang, texts] of [['ja', ja], ['en', en]] as const) {
      const page = await session.newPage({ width: 390, height: 844 });
      await page.goto(`${inject('baseUrl')}/`);
      await pageStarted(page);
      await page.evaluate(([key, value]) => localStorage.setItem(key, value), [storageKeys.language, lang] as const);
      await page.reload();
      // Reached from the entry page's link.
      await page.getByRole('link', { name: texts.withdraw.link }).click();
      await page.waitForURL('**/withdraw');
      await page.locator('input[name="participant_id"]').fill('ZZZZ2345');
      const button = page.getByRole('button', { name: texts.withdraw.button });
      const box = await button.boundingBox();
      expect(box!.y + box!.height, `${lang}: the withdraw button is on the first screen`).toBeLessThanOrEqual(844);
      await button.click();
      await page.getByRole('alertdialog').getByRole('button', { name: texts.withdraw.confirm }).click();
      await page.getByText(texts.withdraw.notFound).waitFor();
      expect(await pageOverflow(page)).toBe(0);
      if (SCREENSHOTS) await page.screenshot({ path: `${SCREENSHOTS}/withdraw-${lang}-390.png`, fullPage: true });
      await page.goto(`${inject('baseUrl')}/experiment/screened-out`);
      await page.getByRole('heading', { name: texts.prolific.screenedOutTitle }).waitFor();
      expect(await pageOverflow(page)).toBe(0);
      if (SCREENSHOTS) await page.screenshot({ path: `${SCREENSHOTS}/screened-out-${lang}-390.png`, fullPage: true });
      await page.context().close();
    }
  });
});
