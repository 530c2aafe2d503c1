/**
 * A returning participant's browser, without a test runner: the storage the app keeps for the
 * participant it serves, written on one opening of the app (the e2e helpers and bench:ui use it).
 */
import type { Page } from 'playwright-core';
import type { DatasetType, Language } from '../../worker/schemas/study-config';
import { storageKeys } from '../../web/lib/storage-keys';

/** Waits until the app has started on the page: it sets (and saves) its language while starting, so storage written before then may be overwritten. */
export const pageStarted = (page: Page) => page.locator('#root > *').first().waitFor({ state: 'attached' });

/**
 * Opens the app at `baseUrl` and leaves `p` (and the language) in this browser's storage, as a
 * returning participant's browser holds them; `tabFlags` go to this tab's sessionStorage (a
 * tutorial done, an understanding test passed).
 */
export async function rememberParticipant(
  page: Page,
  baseUrl: string,
  p: { id: string; userId: number; datasetType: DatasetType },
  language: Language,
  tabFlags: Record<string, string> = {},
): Promise<void> {
  await page.goto(`${baseUrl}/status`);
  await pageStarted(page);
  await page.evaluate(
    ({ p, language, keys, tabFlags }) => {
      localStorage.setItem(keys.language, language);
      for (const key of [keys.sessionId, keys.participantId, keys.participantName, keys.legacyParticipantId]) localStorage.setItem(key, p.id);
      localStorage.setItem(keys.datasetType, p.datasetType);
      localStorage.setItem(keys.session, JSON.stringify({ session_id: p.id, participant_name: p.id, experiment_type: p.datasetType, user_id: p.userId, timestamp: Date.now() }));
      for (const [key, value] of Object.entries(tabFlags)) sessionStorage.setItem(key, value);
    },
    { p, language, keys: storageKeys, tabFlags },
  );
}
