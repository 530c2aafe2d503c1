/** What both own-task tests check on a participant's phone: the task on the selection page, and its example case. */
import { expect, inject } from 'vitest';
import type { Page } from 'playwright-core';
import type en from '../../web/i18n/en.json';
import { pageOverflow } from '../e2e/browser';

/** The selection page offers the task by its name and feature count, nothing reaching past the screen's edge. */
export async function expectOnSelectionPage(page: Page, t: typeof en, name: string, features: number): Promise<void> {
  await page.goto(`${inject('baseUrl')}/experiment/selection`);
  const card = page.locator('.dataset-card').filter({ hasText: name });
  await card.waitFor();
  expect(await card.innerText()).toContain(t.datasets.features.replace('{{count}}', String(features)));
  expect(await pageOverflow(page)).toBeLessThanOrEqual(0);
}

/** The pre-experiment's example case shows each of `labels` (the task's own field names); resolves to its whole text. */
export async function expectExampleCase(page: Page, labels: string[]): Promise<string> {
  await page.goto(`${inject('baseUrl')}/experiment/pre`);
  const example = page.locator('.case-card');
  await example.locator('h2').waitFor();
  const text = await example.innerText();
  for (const label of labels) expect(text).toContain(label);
  return text;
}

/** From the explanation step, the first main case to its end (final judgement, the five questions); resolves once the second case shows. */
export async function finishFirstMainCase(page: Page, t: typeof en): Promise<void> {
  await page.getByRole('button', { name: t.main.toFinal }).click();
  await page.getByTestId('final-ai-reminder').waitFor();
  await page.locator('.answer-bar .judgement-prediction .radio').nth(1).click();
  await page.locator('.answer-bar .judgement-confidence .radio').nth(2).click();
  await page.getByRole('button', { name: t.judgement.submit, exact: true }).click();
  const items = page.locator('.survey-item');
  await items.first().waitFor();
  for (let i = 0; i < 5; i++) await items.nth(i).locator('.radio').nth(i).click();
  await page.getByRole('button', { name: t.main.survey.submit }).click();
  await page.locator('.case-card h2').filter({ hasText: '2' }).waitFor();
}
