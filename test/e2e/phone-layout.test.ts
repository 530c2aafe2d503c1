/**
 * Every participant screen at 320, 360, 390 and 1280 px, in both languages, for every dataset: nothing
 * wider than the viewport, no heading or button leaving one or two characters on a line of their
 * own in Japanese, and at 390×844 a whole case with its submit button on one screen.
 * Screenshots of the case screen at phone size go to test-results/screens/ for a reviewer.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../../ml-assets/lib/paths';
import en from '../../web/i18n/en.json';
import ja from '../../web/i18n/ja.json';
import { DATASET_TYPES, LANGUAGES, type DatasetType, type Language } from '../../worker/schemas/study-config';
import { sessionKeys } from '../../web/lib/storage-keys';
import { useBrowser } from './browser';
import { adoptParticipant, makeParticipant, type TestParticipant } from './participants';
import { datasetTranslations } from '../../worker/schemas/datasets';

const session = useBrowser();
const WIDTHS = [320, 360, 390, 430, 1280] as const;
const SCREENS_DIR = path.join(projectRoot, 'test-results', 'screens');
const texts = { ja, en } as const;

/** Elements reaching past the right edge of the viewport, described for the failure message. */
async function overflowing(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const out: string[] = [];
    if (document.documentElement.scrollWidth > width) out.push(`document is ${document.documentElement.scrollWidth}px wide`);
    for (const el of Array.from(document.querySelectorAll('body *'))) {
      const rect = el.getBoundingClientRect();
      if (rect.width > 0 && rect.right > width + 0.5) out.push(`${el.tagName.toLowerCase()}.${el.className} right=${Math.round(rect.right)} "${(el.textContent ?? '').slice(0, 40)}"`);
    }
    return out.slice(0, 5);
  });
}

/**
 * Headings and buttons whose text wraps with a line of one or two characters (issue #59, point 7:
 * このデータセットで始め/る), each as its lines joined by " / ". Lines are told apart by where
 * each character is drawn.
 */
async function orphanLines(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const found: string[] = [];
    for (const el of Array.from(document.querySelectorAll('h1, h2, h3, button, .button'))) {
      if (!(el instanceof HTMLElement) || el.offsetParent === null) continue;
      const glyphs: { top: number; height: number; ch: string }[] = [];
      const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode() as Text | null; node; node = walker.nextNode() as Text | null) {
        for (let i = 0; i < node.data.length; i++) {
          if (/\s/.test(node.data[i]!)) continue;
          const range = document.createRange();
          range.setStart(node, i);
          range.setEnd(node, i + 1);
          const rect = range.getBoundingClientRect();
          if (rect.height > 0) glyphs.push({ top: rect.top, height: rect.height, ch: node.data[i]! });
        }
      }
      const lines: string[] = [];
      let lineTop = Number.NEGATIVE_INFINITY;
      for (const g of glyphs) {
        if (g.top - lineTop > g.height / 2) {
          lines.push('');
          lineTop = g.top;
        }
        lines[lines.length - 1] += g.ch;
      }
      if (lines.length > 1 && lines.some((line) => line.length <= 2)) found.push(lines.join(' / '));
    }
    return found;
  });
}

/** Largest values the datasets hold, for the numeric fields whose width varies. */
const LARGEST_NUMBERS: Record<DatasetType, Record<string, number>> = {
  adult_income: { age: 90, fnlwgt: 1_490_400, education_num: 16, capital_gain: 99_999, capital_loss: 4_356, hours_per_week: 99 },
  speed_dating: { age: 55, income: 109_031, pf_o_att: 100, pf_o_sin: 60, pf_o_int: 50, pf_o_fun: 50, pf_o_amb: 53, pf_o_sha: 30, attr_o: 10, sinc_o: 10, intel_o: 10, fun_o: 10, amb_o: 10, shar_o: 10 },
  compas: { age: 96, juv_fel_count: 20, juv_misd_count: 13, juv_other_count: 17, priors_count: 38 },
};

/** The widest case a dataset can show in a language: every category at its longest label, every number at its largest. */
function widestCase(dataset: DatasetType, language: Language): Record<string, string | number> {
  const labels = datasetTranslations(language).values[dataset]!;
  const categories = Object.fromEntries(
    Object.entries(labels).map(([field, byCode]) => {
      const [code] = Object.entries(byCode).sort(([, a], [, b]) => b.length - a.length)[0]!;
      return [field, /^\d+$/.test(code) ? Number(code) : code];
    }),
  );
  return { ...LARGEST_NUMBERS[dataset], ...categories };
}

async function open(page: Page, route: string, ready: string) {
  await page.goto(`${session.baseUrl()}${route}`);
  await page.getByRole('heading', { name: ready, level: 1 }).first().waitFor();
}

describe.each(DATASET_TYPES)('participant screens for %s', (dataset: DatasetType) => {
  const participants = {} as Record<Language, TestParticipant>;
  beforeAll(async () => {
    for (const language of LANGUAGES) participants[language] = await makeParticipant(dataset);
  });

  it.each(LANGUAGES.flatMap((language) => WIDTHS.map((width) => [language, width] as const)))(
    'in %s at %i px: nothing overflows; at 390×844 a case and its submit button fit one screen',
    async (language, width) => {
      const t = texts[language];
      const page = await session.newPage({ width, height: width < 700 ? 844 : 800 });
      const warnings: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'warning' || m.type() === 'error') warnings.push(m.text());
      });
      await adoptParticipant(page, participants[language], language);
      const screens: [string, string][] = [
        ['/', t.entry.title],
        ['/experiment/selection', t.selection.title],
        ['/experiment/consent', t.consent.title],
        ['/resume', t.resume.pageTitle],
        ['/experiment/pre', t.pre.title],
        ['/experiment/main?debug=true', t.main.title],
        ['/experiment/nowhere', t.notFound.title],
      ];
      for (const [route, heading] of screens) {
        await open(page, route, heading);
        expect(await overflowing(page), `${route} at ${width}px`).toEqual([]);
        if (language === 'ja') expect(await orphanLines(page), `${route} at ${width}px: a line of one or two characters`).toEqual([]);
      }

      // The case screen (practice marked done for this tab), showing the widest case the dataset can have.
      await page.route('**/api/experiments/resume', async (route) => {
        const response = await route.fetch();
        const body = (await response.json()) as { caseSet: { features: Record<string, unknown> }[] };
        body.caseSet[0]!.features = widestCase(dataset, language);
        await route.fulfill({ response, json: body });
      });
      await page.evaluate((key) => sessionStorage.setItem(key, 'true'), sessionKeys.preTutorialDone);
      await open(page, '/experiment/pre', t.pre.title);
      await page.getByRole('button', { name: t.pre.start }).click();
      await page.locator('.case-card h2').waitFor();
      expect(await overflowing(page), `case screen at ${width}px`).toEqual([]);
      if (width === 390) {
        const submit = await page.getByRole('button', { name: t.judgement.submit, exact: true }).boundingBox();
        const card = await page.locator('.case-card').boundingBox();
        const bar = await page.locator('.answer-bar').boundingBox();
        expect(submit && submit.y >= 0 && submit.y + submit.height <= 844, 'submit button inside the 844 px screen').toBe(true);
        expect(card && bar && card.y + card.height <= bar.y + 1, 'the whole case above the answer bar').toBe(true);
        mkdirSync(SCREENS_DIR, { recursive: true });
        await page.screenshot({ path: path.join(SCREENS_DIR, `case-${dataset}-${language}-390x844.png`) });
      }
      // Lazy screens load behind a fallback, never React Router's "No HydrateFallback element" warning.
      expect(warnings.filter((w) => w.includes('HydrateFallback'))).toEqual([]);
      await page.context().close();
    },
  );
});
