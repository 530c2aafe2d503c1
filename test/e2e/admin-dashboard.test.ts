import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { strFromU8, unzipSync } from 'fflate';
import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import adminEn from '../../web/features/admin/i18n/en.json';
import adminJa from '../../web/features/admin/i18n/ja.json';
import en from '../../web/i18n/en.json';
import ja from '../../web/i18n/ja.json';
import { chooseEnglish, pageOverflow, signInAsAdmin, useBrowser } from './browser';
import { E2E_ADMIN_PASSWORD } from './global-setup';
import { judgeInitially, makeParticipant, startMainPrepared } from './participants';
import { DATASETS } from '../../worker/schemas/datasets';
import { LOAN_ID, loanCsv, loanDefinition } from '../helpers/synthetic-dataset';

const session = useBrowser();
const SCREENSHOTS = process.env.XDL_SCREENSHOT_DIR;

const signIn = (page: Page, path: string) => signInAsAdmin(page, `${session.baseUrl()}${path}`, E2E_ADMIN_PASSWORD, adminJa.auth.title, adminJa.auth.password);

/** Registers a synthetic participant through the dashboard's own session (the page's cookie). */
async function registerThroughPage(page: Page, name: string) {
  return page.evaluate(async (participant) => {
    const res = await fetch(`/api/admin/register-user-responses?participant_name=${participant}&dataset_type=compas&num_responses=12&accuracy_rate=0.75`, { method: 'POST' });
    return res.status;
  }, name);
}

/** Neither the page nor any of its parts is wider than the screen, except inside table scrollers. */

describe('a synthetic participant from the dashboard', () => {
  // Issue #59, point 2: docs/dashboard-and-exports.md offers a synthetic participant as the way to
  // try the study: resumed from the dashboard, it goes on into the main experiment and judges a case.
  it('made with 200 answers, resumed by its test_ name, starts the main experiment and judges a case (390, ja)', async () => {
    const admin = await session.newPage({ width: 1280, height: 800 });
    await signIn(admin, '/admin');
    await admin.getByRole('heading', { name: adminJa.dashboard.title }).waitFor();
    const name = `test_walk${Date.now().toString(36)}`;
    expect(
      await admin.evaluate(async (participant) => {
        const res = await fetch(`/api/admin/register-user-responses?participant_name=${participant}&dataset_type=compas&num_responses=200&accuracy_rate=0.7`, { method: 'POST' });
        return res.status;
      }, name),
    ).toBe(200);
    await admin.context().close();

    const page = await session.newPage({ width: 390, height: 844 });
    await page.goto(`${session.baseUrl()}/resume?participant_id=${name}`);
    const resume = page.getByRole('button', { name: ja.resume.button });
    await expect.poll(() => resume.isEnabled(), { timeout: 15_000 }).toBe(true);
    await resume.click();
    await page.waitForURL('**/experiment/main**');
    await startMainPrepared(page, ja.main.start);
    await judgeInitially(page, DATASETS.compas.texts.ja.task, ja.judgement.submit);
    expect(await page.locator('.error-title').count()).toBe(0);
    await page.context().close();
  });
});

describe('/admin', () => {
  it("shows the seeded participants' reliance metrics, exports the same numbers, and filters users by a data-quality flag", async () => {
    const page = await session.newPage({ width: 1280, height: 800 });
    await signIn(page, '/admin');
    await page.getByRole('heading', { name: adminJa.dashboard.title }).waitFor();
    const stamp = Date.now().toString(36);
    const names = [`test_rel${stamp}a`, `test_rel${stamp}b`];
    for (const [i, name] of names.entries()) {
      const status = await page.evaluate(
        async ({ name, accuracy }) => {
          const pre = await fetch(`/api/admin/register-user-responses?participant_name=${name}&dataset_type=compas&num_responses=200&accuracy_rate=${accuracy}`, { method: 'POST' });
          const main = await fetch(`/api/admin/register-main-experiment-responses?participant_name=${name}&dataset_type=compas&num_responses=20&accuracy_rate=${accuracy}`, { method: 'POST' });
          return [pre.status, main.status];
        },
        { name, accuracy: i === 0 ? 0.8 : 0.5 },
      );
      expect(status).toEqual([200, 200]);
    }
    // A participant who came back ten times carries the "many resumes" flag.
    const returner = await makeParticipant('compas');
    for (let i = 0; i < 10; i++) {
      expect(await page.evaluate(async (id) => (await fetch('/api/experiments/resume', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ participant_name: id }) })).status, returner.id)).toBe(200);
    }

    await page.getByRole('tab', { name: adminJa.dashboard.tabs.reliance }).click();
    const table = page.getByTestId('reliance-participants');
    await page.getByTestId('reliance-counts').waitFor();
    // Synthetic participants are left out of the figures until the researcher counts them in.
    expect(await table.getByRole('row').filter({ hasText: names[0]! }).count()).toBe(0);
    await page.getByTestId('include-synthetic').click();
    type Interval = { mean: number | null; ci_low: number | null; ci_high: number | null };
    const report = await page.evaluate(
      async () =>
        (await (await fetch('/api/admin/analytics/reliance?include_synthetic=true')).json()) as {
          participants: { user_name: string; metrics: Record<string, number | null> }[];
          by_alpha: { metrics: Record<string, Interval | undefined> }[];
        },
    );
    const expected = report.participants;
    for (const name of names) {
      const row = table.getByRole('row').filter({ hasText: name });
      await row.waitFor();
      const agreement = expected.find((p) => p.user_name === name)!.metrics.agreement!;
      // Columns: participant, trials, then the metrics in definition order (agreement first).
      expect(Number(await row.getByRole('gridcell').nth(1).innerText())).toBeCloseTo(agreement, 3);
    }
    await page.locator('[data-chart="reliance-by-alpha"] .recharts-bar-rectangle').first().waitFor();
    // An error bar for every alpha group whose agreement has a 95% interval of some length (a group
    // of one participant has none, and its zero-length bar draws nothing).
    const intervals = report.by_alpha.filter(({ metrics: { agreement: m } }) => m?.mean != null && m.ci_low != null && m.ci_high != null && m.ci_high > m.ci_low).length;
    expect(intervals).toBeGreaterThan(0);
    const errorBars = page.locator('[data-chart="reliance-by-alpha"] .recharts-errorBar').filter({ visible: true });
    await errorBars.nth(intervals - 1).waitFor();
    expect(await errorBars.count()).toBe(intervals);
    // Sorting by a metric reorders the table.
    // The seeded study's alpha models rest on a handful of participants: the tab says so under them.
    expect(await page.getByTestId('few-clusters').innerText()).toContain(adminJa.dashboard.reliance.fewClusters.replace('{{min}}', '30').slice(0, 12));
    await table.getByRole('columnheader', { name: adminJa.dashboard.reliance.metrics.final_accuracy }).click();
    if (SCREENSHOTS) await page.screenshot({ path: `${SCREENSHOTS}/admin-reliance-ja-1280.png`, fullPage: true });
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: adminJa.dashboard.reliance.exportParticipants }).click();
    const csv = Papa.parse<Record<string, string>>(readFileSync((await (await download).path())!, 'utf8'), { header: true, skipEmptyLines: true }).data;
    for (const name of names) {
      expect(Number(csv.find((r) => r.user_name === name)!.agreement)).toBe(expected.find((p) => p.user_name === name)!.metrics.agreement);
    }

    await page.getByRole('tab', { name: /ユーザー/ }).click();
    // The returner is in the unfiltered list too, so its row alone does not show the filter has
    // been applied: wait for the filtered answer, then for a table whose every row is flagged.
    const filtered = page.waitForResponse((r) => r.url().includes('/api/admin/users') && r.url().includes('flag=many_resumes'));
    await page.getByTestId('flag-filter').selectOption('many_resumes');
    await filtered;
    const rows = page.locator('.admin-table tbody tr');
    await expect
      .poll(async () => {
        const texts = await rows.allInnerTexts();
        return texts.length > 0 && texts.every((t) => t.includes(adminJa.dashboard.flags.many_resumes));
      })
      .toBe(true);
    expect(await page.getByRole('row').filter({ hasText: returner.id }).count()).toBe(1);
    expect(await page.getByRole('row').filter({ hasText: names[0]! }).count()).toBe(0);
    await page.context().close();
  });

  it('asks for the password, then shows a registered synthetic participant, exports CSV, deletes it and signs out', async () => {
    const page = await session.newPage({ width: 1280, height: 800 });
    await signIn(page, '/admin');
    await page.getByRole('heading', { name: adminJa.dashboard.title }).waitFor();

    const name = `test_e2e${Date.now().toString(36)}`;
    expect(await registerThroughPage(page, name)).toBe(200);
    await page.getByRole('button', { name: adminJa.dashboard.refresh }).click();
    const row = page.getByRole('row').filter({ hasText: name });
    await row.waitFor();
    await expect.poll(() => row.locator('.badge').first().innerText()).toBe(adminJa.dashboard.values.test);
    // The summary counts synthetic participants only when asked to.
    await page.getByTestId('include-synthetic').click();
    await expect.poll(async () => Number(await page.locator('[data-summary="users"]').innerText())).toBeGreaterThanOrEqual(1);

    // Resume opens the resume page for this row's participant (a test_ name) and continues them.
    const [popup] = await Promise.all([page.waitForEvent('popup'), row.getByRole('button', { name: adminJa.dashboard.actions.resume }).click()]);
    await popup.waitForURL(/\/resume\?/);
    expect(new URL(popup.url()).searchParams.get('participant_id')).toBe(name);
    await popup.locator('.resume-result[data-state="resumable"]').waitFor();
    await popup.getByRole('button', { name: ja.resume.button }).click();
    await popup.waitForURL(/\/experiment\/pre$/);
    expect(await popup.evaluate(() => JSON.stringify(localStorage))).toContain(name);
    await popup.close();

    // The pre-experiment tab exports this participant's answers as CSV.
    await page.getByRole('tab', { name: /事前実験/ }).click();
    await page.getByLabel(adminJa.dashboard.exports.userFilter).fill(name);
    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('[data-export="pre-experiment"]').click()]);
    expect(download.suggestedFilename()).toMatch(new RegExp(`^pre-experiment_\\d{8}-\\d{6}_${name}\\.csv$`));
    const csv = Papa.parse<Record<string, string>>(readFileSync((await download.path())!, 'utf8'), { header: true, skipEmptyLines: true });
    expect(csv.data).toHaveLength(12);
    expect(new Set(csv.data.map((r) => r.user_name))).toEqual(new Set([name]));

    // Back on the users tab: delete with the cascading-deletion warning.
    await page.getByRole('tab', { name: /ユーザー/ }).click();
    await row.getByRole('button', { name: adminJa.dashboard.actions.delete }).click();
    const confirm = page.getByRole('alertdialog');
    await confirm.getByText(adminJa.dashboard.deleteUser.body).waitFor();
    await confirm.getByRole('button', { name: adminJa.dashboard.actions.confirmDelete }).click();
    await page.getByRole('status').filter({ hasText: name }).waitFor();
    await row.waitFor({ state: 'detached' });
    const gone = await page.evaluate(async (participant) => (await (await fetch(`/api/admin/users?user_name=${participant}`)).json()) as { total: number }, name);
    expect(gone.total).toBe(0);

    await page.getByRole('button', { name: adminJa.auth.logout }).click();
    await page.getByRole('dialog', { name: adminJa.auth.title }).waitFor();
    expect(await page.evaluate(async () => (await fetch('/api/admin/users')).status)).toBe(401);
    await page.context().close();
  });

  it.each([
    [390, 844, 'ja'],
    [1280, 800, 'en'],
  ] as const)('writes the all-data export in steps with its progress, and downloads it once complete (%i×%i, %s)', async (width, height, lang) => {
    const page = await session.newPage({ width, height });
    await signIn(page, '/admin');
    const name = `test_zip${width}${Date.now().toString(36)}`;
    expect(await registerThroughPage(page, name)).toBe(200);
    if (lang === 'en') await chooseEnglish(page);
    const texts = lang === 'ja' ? adminJa : adminEn;
    await page.getByRole('tab', { name: new RegExp(`^${texts.dashboard.tabs.pre.replace(' ({{count}})', '')} `) }).click();
    await page.locator('[data-export="all-data"]').click();
    await page.getByRole('status').filter({ hasText: texts.dashboard.exports.jobs.started }).waitFor();
    // The newest job comes first; it is written by the export Workflow and read again every 2 s.
    const job = page.locator('.export-job').first();
    await page.waitForFunction(() => document.querySelector('.export-job')?.getAttribute('data-export-job') === 'completed', null, { timeout: 60_000 });
    const progress = await job.getByRole('progressbar').getAttribute('aria-valuetext');
    expect(progress).toMatch(lang === 'ja' ? /^(\d+) ファイル中 \1 ・ [\d,]+ 行$/ : /^(\d+) of \1 files · [\d,]+ rows$/);
    expect(await pageOverflow(page)).toBeLessThanOrEqual(0);
    if (SCREENSHOTS) await page.screenshot({ path: `${SCREENSHOTS}/admin-export-jobs-${lang}-${width}.png`, fullPage: true });
    const [download] = await Promise.all([page.waitForEvent('download'), job.getByRole('button', { name: texts.dashboard.exports.jobs.download }).click()]);
    expect(download.suggestedFilename()).toMatch(/^all-data_\d{8}-\d{6}\.zip$/);
    const files = unzipSync(new Uint8Array(readFileSync((await download.path())!)));
    expect(Object.keys(files)).toEqual(expect.arrayContaining(['participants.csv', 'pre-experiment.csv', 'codebook.csv']));
    expect(strFromU8(files['pre-experiment.csv']!)).toContain(name);
    await page.context().close();
  }, 120_000);

  it("checks the dataset of the name before registering main cases, in the spec's words", async () => {
    const page = await session.newPage({ width: 1280, height: 800 });
    await signIn(page, '/admin');
    const name = `test_dc${Date.now().toString(36)}`;
    expect(await registerThroughPage(page, name)).toBe(200);
    await page.getByRole('tab', { name: adminJa.dashboard.tabs.registration }).click();
    const panel = page.getByRole('tabpanel');
    const nameField = panel.getByLabel(adminJa.dashboard.debug.participantName);
    const register = panel.getByRole('button', { name: adminJa.dashboard.registration.register });

    // No name after test_: the spec's message, and nothing registered.
    await register.click();
    await page.getByRole('alert').filter({ hasText: adminJa.dashboard.consistency.nameRequired }).waitFor();

    await nameField.fill(name);
    await panel.getByLabel(adminJa.dashboard.debug.dataset).selectOption('adult_income');
    await panel.locator('[data-consistency="mismatch"]').filter({ hasText: 'データセット整合性エラー' }).waitFor();
    expect(await register.isDisabled()).toBe(true);
    await panel.getByLabel(adminJa.dashboard.debug.dataset).selectOption('compas');
    await panel.locator('[data-consistency="success"]').waitFor();
    await nameField.fill(`${name}x`);
    await panel.locator('[data-consistency="new_user"]').waitFor();
    expect(await register.isDisabled()).toBe(false);
    await page.context().close();
  });

  it('refuses a wrong password in the dialog and keeps the dashboard hidden', async () => {
    const page = await session.newPage();
    await page.goto(`${session.baseUrl()}/admin`);
    const dialog = page.getByRole('dialog', { name: adminJa.auth.title });
    // The spec's words: nothing typed, then a wrong password.
    await dialog.getByRole('button', { name: adminJa.auth.submit }).click();
    await dialog.getByRole('alert').filter({ hasText: adminJa.auth.enterPassword }).waitFor();
    await dialog.getByLabel(adminJa.auth.password).fill('not the password');
    await dialog.getByRole('button', { name: adminJa.auth.submit }).click();
    await dialog.getByRole('alert').filter({ hasText: adminJa.auth.wrong }).waitFor();
    expect(await dialog.getByRole('alert').innerText()).toBe(adminJa.auth.wrong);
    if (SCREENSHOTS) await page.screenshot({ path: `${SCREENSHOTS}/admin-password-wrong-ja.png` });
    expect(await page.getByRole('heading', { name: adminJa.dashboard.title }).count()).toBe(0);
    await page.context().close();
  });

  it.each([
    [390, 844],
    [1280, 800],
  ])('lays out the dashboard and home page without page overflow at %i×%i in both languages', async (width, height) => {
    const page = await session.newPage({ width, height });
    await signIn(page, '/admin');
    expect(await registerThroughPage(page, `test_layout${width}`)).toBe(200);
    for (const lang of ['ja', 'en'] as const) {
      const texts = lang === 'ja' ? adminJa : adminEn;
      if (lang === 'en') await chooseEnglish(page);
      await page.getByRole('heading', { name: texts.dashboard.title }).waitFor();
      await page.getByRole('button', { name: texts.dashboard.refresh }).click();
      // Only synthetic participants here: the figures show them when asked to.
      await page.getByTestId('include-synthetic').click();
      await page.locator('[data-chart="funnel"] .recharts-bar-rectangle').first().waitFor();
      expect(await pageOverflow(page)).toBeLessThanOrEqual(0);
      const layout = await page.evaluate(() => {
        const lines = (el: Element) => {
          const range = document.createRange();
          range.selectNodeContents(el);
          return new Set(Array.from(range.getClientRects(), (r) => Math.round(r.top))).size;
        };
        const cards = Array.from(document.querySelectorAll('.summary-cards .card'), (c) => Math.round(c.getBoundingClientRect().top));
        const tabs = Array.from(document.querySelectorAll('[role="tab"]'), (t) => t.getBoundingClientRect());
        return {
          // A one-word title (Withdrawals) on one line: not broken mid-word.
          oneWordTitlesOnOneLine: Array.from(document.querySelectorAll('.summary-cards .card-title')).filter((t) => /^[A-Za-z]+$/.test((t.textContent ?? '').trim())).every((t) => lines(t) === 1),
          cardRows: new Set(cards).size,
          tabsInView: tabs.every((r) => r.left >= 0 && r.right <= window.innerWidth),
          datasetLabels: Array.from(document.querySelectorAll('[data-chart="balance"] .recharts-cartesian-axis-tick-value'), (t) => t.textContent),
        };
      });
      expect(layout.oneWordTitlesOnOneLine).toBe(true);
      expect(layout.datasetLabels).toContain('compas');
      // On a desktop the six summary cards share one row and every tab is in view, none scrolled away.
      if (width >= 1280) expect(layout).toMatchObject({ cardRows: 1, tabsInView: true });
      if (SCREENSHOTS) await page.screenshot({ path: `${SCREENSHOTS}/admin-${lang}-${width}.png`, fullPage: true });
      for (const tab of ['reliance', 'bonuses', 'activity', 'studyConfig', 'datasets', 'cleanup', 'registration'] as const) {
        await page.getByRole('tab', { name: texts.dashboard.tabs[tab] }).click();
        if (tab === 'activity') {
          // The participant just registered is active now, and the sign-in is in the audit log.
          const activity = page.getByTestId('activity-tab');
          await activity.getByRole('row').filter({ hasText: `test_layout${width}` }).first().waitFor();
          await activity.getByRole('row').filter({ hasText: 'admin_login' }).first().waitFor();
        }
        // The configuration tab shows the running version, read-only.
        if (tab === 'reliance') await page.getByTestId('reliance-counts').waitFor();
        // A study without incentives has no bonus to pay, and says so.
        if (tab === 'bonuses') await expect.poll(() => page.getByTestId('bonuses-unpaid').innerText()).toBe(texts.dashboard.bonuses.noneUnpaid);
        if (tab === 'studyConfig') expect(await page.getByTestId('study-config-version').innerText()).toMatch(/^\d+\.\d+\.\d+\+[0-9a-f]{12}$/);
        if (tab === 'datasets') await page.getByRole('rowheader', { name: 'speed_dating' }).waitFor();
        expect(await pageOverflow(page), tab).toBeLessThanOrEqual(0);
        if (SCREENSHOTS) await page.screenshot({ path: `${SCREENSHOTS}/admin-${tab}-${lang}-${width}.png`, fullPage: true });
      }
      await page.getByRole('tab', { name: /ユーザー|Users/ }).click();
      await page.goto(`${session.baseUrl()}/home`);
      await page.getByRole('heading', { name: texts.home.title }).waitFor();
      // No participant in the researcher's browser is no error.
      expect(await page.getByTestId('no-participant').innerText()).toBe(texts.home.participant.none);
      expect(await page.getByText((lang === 'ja' ? ja : en).setupError.note).count()).toBe(0);
      expect(await pageOverflow(page)).toBeLessThanOrEqual(0);
      if (SCREENSHOTS) await page.screenshot({ path: `${SCREENSHOTS}/home-${lang}-${width}.png`, fullPage: true });
      await page.goto(`${session.baseUrl()}/admin`);
    }
    await page.context().close();
  });

  it.each([
    ['ja', 390, 844],
    ['en', 1280, 800],
    ['en', 390, 844],
    ['ja', 1280, 800],
  ] as const)("checks a researcher's new dataset (definition and CSV) in %s at %i×%i: what it found, or why it cannot be built", async (lang, width, height) => {
    const texts = lang === 'ja' ? adminJa : adminEn;
    const page = await session.newPage({ width, height });
    await signIn(page, '/admin');
    if (lang === 'en') await chooseEnglish(page);
    await page.getByRole('tab', { name: texts.dashboard.tabs.datasets }).click();
    // The study's three datasets, from their definitions.
    for (const id of ['adult_income', 'speed_dating', 'compas']) await page.getByRole('rowheader', { name: id, exact: true }).waitFor();

    const csv = loanCsv(4000);
    const definition = loanDefinition(createHash('sha256').update(csv).digest('hex'));
    const choose = async (def: unknown, data: string) => {
      await page.getByTestId('dataset-definition-file').setInputFiles({ name: `${LOAN_ID}.json`, mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(def)) });
      await page.getByTestId('dataset-csv-file').setInputFiles({ name: 'applications.csv', mimeType: 'text/csv', buffer: Buffer.from(data) });
      await page.getByRole('button', { name: texts.dashboard.datasets.check, exact: true }).click();
    };
    // A CSV over the Worker's 6 MB is stopped in the browser, before any upload, saying why and what to do.
    const previews: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/api/admin/datasets/preview')) previews.push(r.url());
    });
    await page.getByTestId('dataset-definition-file').setInputFiles({ name: `${LOAN_ID}.json`, mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(definition)) });
    await page.getByTestId('dataset-csv-file').setInputFiles({ name: 'huge.csv', mimeType: 'text/csv', buffer: Buffer.alloc(7 * 1024 * 1024, 'a') });
    const tooLarge = page.getByTestId('dataset-csv-too-large');
    await tooLarge.waitFor();
    expect(await tooLarge.innerText()).toBe(texts.dashboard.datasets.csvTooLarge.replace('{{file}}', 'huge.csv').replace('{{size}}', '7.0').replace('{{max}}', '6'));
    expect(await page.getByRole('button', { name: texts.dashboard.datasets.check, exact: true }).isDisabled()).toBe(true);
    expect(previews).toEqual([]);
    expect(await pageOverflow(page)).toBeLessThanOrEqual(0);
    await tooLarge.scrollIntoViewIfNeeded();
    if (SCREENSHOTS) await page.screenshot({ path: `${SCREENSHOTS}/admin-dataset-too-large-${lang}-${width}.png` });

    await choose(definition, csv);
    const preview = page.getByTestId('dataset-preview');
    await preview.waitFor();
    expect(await preview.locator('h3').innerText()).toBe(texts.dashboard.datasets.resultTitle.replace('{{dataset}}', LOAN_ID));
    expect(await page.getByTestId('dataset-preview-pools').innerText()).toContain(texts.dashboard.datasets.poolsOk.split('{{')[0]!.trim());
    // The AI's cross-validated accuracy beside the two baselines', on the rows it would be trained on.
    expect(await page.getByTestId('dataset-accuracy').innerText()).toContain(texts.dashboard.datasets.accuracy.definition.split('{{')[0]!.trim());
    expect(await preview.getByRole('row').filter({ hasText: 'applicant_name' }).innerText()).toContain(texts.dashboard.datasets.readAs.ignored);
    expect(await page.getByTestId('dataset-preview-steps').locator('li').first().innerText()).toBe(texts.dashboard.datasets.steps.definition.replace('{{file}}', `ml-assets/datasets/${LOAN_ID}.json`));
    expect(await pageOverflow(page)).toBeLessThanOrEqual(0);
    if (SCREENSHOTS) await page.screenshot({ path: `${SCREENSHOTS}/admin-dataset-check-${lang}-${width}.png`, fullPage: true });

    // A small file as first written (no sha256, the default pools): the short outcomes, the proposal and what the AI would reach, nothing past the edge.
    const small = loanCsv(569);
    const first = structuredClone(definition) as { source: { files: Record<string, unknown>[] } };
    delete first.source.files[0]!.sha256;
    await choose(first, small);
    await page.getByTestId('dataset-proposal').waitFor();
    expect(await page.getByTestId('dataset-preview-short').locator('li').count()).toBe(2);
    expect(await page.getByTestId('dataset-proposal-fit').innerText()).toContain(texts.dashboard.datasets.proposalFit.split('{{')[0]!.trim());
    expect(await page.getByTestId('dataset-accuracy').innerText()).toContain(texts.dashboard.datasets.accuracy.proposal.split('{{')[0]!.trim());
    expect(await pageOverflow(page)).toBeLessThanOrEqual(0);
    await page.getByTestId('dataset-proposal').scrollIntoViewIfNeeded();
    if (SCREENSHOTS) await page.screenshot({ path: `${SCREENSHOTS}/admin-dataset-proposal-${lang}-${width}.png` });

    // A broken definition: refused, naming the column and the rule.
    const broken = structuredClone(definition) as { columns: Record<string, unknown>[] };
    broken.columns[3]!.format = 'stars';
    await choose(broken, csv);
    const refused = page.getByTestId('dataset-refused');
    await refused.waitFor();
    expect(await refused.innerText()).toContain('columns[3] (credit_score).format');
    // What the refusal means, in the interface's language; the server's detail kept beside it.
    expect(await page.getByTestId('dataset-refused-meaning').innerText()).toBe(texts.dashboard.datasets.refusals.invalid_definition);
    expect(await page.getByTestId('dataset-preview').count()).toBe(0);
    if (SCREENSHOTS) await page.screenshot({ path: `${SCREENSHOTS}/admin-dataset-refused-${lang}-${width}.png`, fullPage: true });
    await page.context().close();
  });
});
