/**
 * A 429 in the browser (a lab or a class behind one address): the page waits for the server's
 * Retry-After, says so in the participant's language without covering or widening anything, sends
 * the same request again and carries on, at 390×844 and 1280×800 in both languages.
 */
import { describe, expect, it } from 'vitest';
import en from '../../web/i18n/en.json';
import ja from '../../web/i18n/ja.json';
import { chooseEnglish, LANGUAGES_AND_SCREENS, pageOverflow, useBrowser } from './browser';

const session = useBrowser();
const SCREENSHOTS = process.env.XDL_SCREENSHOT_DIR;

describe('a request the server asks to send later (429)', () => {
  it.each(LANGUAGES_AND_SCREENS)('consent in %s at %i px: the notice counts down, then the same consent is sent again and the pre-experiment opens', async (language, width, height) => {
    const texts = language === 'ja' ? ja : en;
    const page = await session.newPage({ width, height });
    // The first two consents are answered 429 with Retry-After: 2; the third reaches the Worker.
    const bodies: string[] = [];
    await page.route('**/api/consent/submit', async (route) => {
      bodies.push(route.request().postData() ?? '');
      if (bodies.length <= 2) {
        await route.fulfill({ status: 429, headers: { 'Retry-After': '2' }, contentType: 'application/json', body: '{"detail":"Too many requests. Try again in 2 seconds.","code":"rate_limited"}' });
      } else {
        await route.continue();
      }
    });
    await page.goto(`${session.baseUrl()}/`);
    if (language === 'en') await chooseEnglish(page);
    await page.getByTestId('participant-id').waitFor();
    await page.getByRole('button', { name: texts.entry.start }).click();
    await page.waitForURL('**/experiment/consent');
    // By keyboard: on a phone the sticky action bar can lie over the last item.
    for (const item of Object.values(texts.consent.items)) {
      const box = page.getByRole('checkbox', { name: item });
      await box.focus();
      await page.keyboard.press('Space');
      expect(await box.isChecked()).toBe(true);
    }
    await page.getByRole('button', { name: texts.consent.agree }).click();

    const notice = page.getByTestId('rate-limit-notice');
    await notice.waitFor();
    expect(await notice.innerText()).toMatch(new RegExp(texts.app.rateLimited.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace('\\{\\{seconds\\}\\}', '[12]')));
    // In view wherever the page is scrolled to (the consent button is at its bottom).
    const box = (await notice.boundingBox())!;
    expect(box.y).toBeGreaterThanOrEqual(0);
    expect(box.y + box.height).toBeLessThanOrEqual(height);
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(width);
    expect(await pageOverflow(page)).toBeLessThanOrEqual(0);
    if (SCREENSHOTS) await page.screenshot({ path: `${SCREENSHOTS}/rate-limited-${language}-${width}.png` });

    await page.waitForURL('**/experiment/pre', { timeout: 20_000 });
    expect(bodies).toHaveLength(3);
    expect(new Set(bodies).size).toBe(1);
    await expect.poll(() => notice.count()).toBe(0);
    await page.context().close();
  });
});
