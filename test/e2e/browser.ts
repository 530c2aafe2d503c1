import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, inject } from 'vitest';
import { CHROMIUM_FLAGS, CHROMIUM_PATH } from '../../scripts/lib/chromium';

/** One browser per test file; each test opens its own context (fresh storage). */
export function useBrowser() {
  let browser: Browser;
  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_FLAGS });
  });
  afterAll(async () => {
    await browser?.close();
  });
  return {
    baseUrl: () => inject('baseUrl'),
    async newPage(): Promise<Page> {
      const context = await browser.newContext({ locale: 'ja-JP', viewport: { width: 1100, height: 900 } });
      return context.newPage();
    },
  };
}

/** Any Japanese script character: hiragana, katakana or CJK ideographs. */
export const JAPANESE = /[\u3040-\u30ff\u3400-\u9fff]/;
