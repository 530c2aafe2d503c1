import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, inject } from 'vitest';
import { CHROMIUM_FLAGS, CHROMIUM_PATH } from '../../scripts/lib/chromium';

let contexts = 0;

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
    /**
     * A fresh context. Each gets its own client address (as Cloudflare's edge would report it), so
     * the per-client limit on participant-ID lookups counts each simulated person apart.
     */
    async newPage(options: { width?: number; height?: number } = {}): Promise<Page> {
      const context = await browser.newContext({
        locale: 'ja-JP',
        viewport: { width: options.width ?? 1100, height: options.height ?? 900 },
        extraHTTPHeaders: { 'CF-Connecting-IP': `192.0.2.${++contexts % 250}-${process.pid}-${contexts}` },
      });
      return context.newPage();
    },
  };
}

/** Any Japanese script character: hiragana, katakana or CJK ideographs. */
export const JAPANESE = /[\u3040-\u30ff\u3400-\u9fff]/;

/** Where every participant screen is looked at: both languages, on a phone (390×844) and a laptop (1280×800). */
export const LANGUAGES_AND_SCREENS = [
  ['ja', 390, 844],
  ['en', 390, 844],
  ['ja', 1280, 800],
  ['en', 1280, 800],
] as const;

/** How far the page reaches past the right edge of the screen (0 or less: nothing does). */
export const pageOverflow = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);

/** Opens `url` and signs in through the password dialog a protected page opens with (Enter submits, part 1 §5). */
export async function signInAsAdmin(page: Page, url: string, password: string, dialogTitle: string, passwordLabel: string): Promise<void> {
  await page.goto(url);
  const dialog = page.getByRole('dialog', { name: dialogTitle });
  await dialog.waitFor();
  const field = dialog.getByLabel(passwordLabel);
  await field.fill(password);
  await field.press('Enter');
  await dialog.waitFor({ state: 'detached' });
}

/**
 * Switches the page to English by its toggle and waits until the switch is done: the toggle shows
 * English pressed once the English texts (and, past the entry page, the screens' English texts)
 * are loaded and the page speaks them.
 */
export async function chooseEnglish(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'English' }).click();
  await page.getByRole('button', { name: 'English', pressed: true }).waitFor();
}

export { pageStarted } from './remembered-participant';

/** Whether the element is wholly inside the viewport as the page stands (not scrolled to): a button a participant can press without looking for it. */
export const inViewport = (locator: Locator) =>
  locator.evaluate((el) => {
    const box = el.getBoundingClientRect();
    return box.top >= 0 && box.left >= 0 && box.bottom <= window.innerHeight && box.right <= window.innerWidth;
  });
