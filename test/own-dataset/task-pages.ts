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
