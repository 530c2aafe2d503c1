import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { lazy } from 'react';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import { LanguageToggle } from '../../web/components/ui/language-toggle';
import { badgeTone, StatusBadge } from '../../web/components/ui/status-badge';
import { ErrorDisplay } from '../../web/components/ui/error-display';
import en from '../../web/i18n/en.json';
import ja from '../../web/i18n/ja.json';
import { createI18n, loadScreenTexts, switchLanguage } from '../../web/i18n';
import { textPart } from '../../web/i18n/parts';
import { datasetTranslations } from '../../worker/schemas/datasets';
import { allTextsI18n, renderScreen } from './render';
import { Layout } from '../../web/app/layout';
import { Providers } from '../../web/app/providers';
import { DataFields } from '../../web/components/ui/data-fields';

describe('StatusBadge', () => {
  it.each([
    ['ready', 'green'],
    ['connected', 'green'],
    ['available', 'green'],
    ['healthy', 'green'],
    ['warning', 'amber'],
    ['error', 'red'],
    ['disconnected', 'red'],
    ['not_used', 'grey'],
    ['checking', 'grey'],
  ])('colours %s %s', (state, tone) => {
    expect(badgeTone(state)).toBe(tone);
  });

  it('renders its label with the tone class', () => {
    renderScreen(<StatusBadge state="disconnected" label="切断" />);
    expect(screen.getByText('切断').className).toContain('badge-red');
  });
});

describe('translations', () => {
  it('start with Japanese only and fetch English when it is chosen', async () => {
    const i18n = createI18n('ja');
    expect(i18n.hasResourceBundle('en', 'translation')).toBe(false);
    await switchLanguage(i18n, 'en');
    expect(i18n.language).toBe('en');
    expect(i18n.t('entry.yourId')).toBe(en.entry.yourId);
  });

  it("give the first page only the shell, and a screen its texts and the datasets' columns in each loaded language", async () => {
    const i18n = createI18n('ja');
    const has = (lng: string, key: string) => i18n.getResource(lng, 'translation', key) !== undefined;
    expect(has('ja', 'entry.lead')).toBe(true);
    expect(has('ja', 'datasets.adult_income.name')).toBe(true);
    expect(has('ja', 'consent.person')).toBe(true);
    expect(has('ja', 'consent.title')).toBe(false);
    expect(has('ja', 'fields.adult_income.age.label')).toBe(false);
    await loadScreenTexts(i18n);
    expect(i18n.t('consent.title')).toBe(ja.consent.title);
    expect(has('ja', 'fields.adult_income.age.label')).toBe(true);
    expect(has('en', 'translation')).toBe(false);
    await switchLanguage(i18n, 'en');
    expect(i18n.t('consent.title')).toBe(en.consent.title);
    expect(i18n.t('fields.adult_income.age.label')).toBe(datasetTranslations('en').fields.adult_income!.age!.label);
  });

  it("follow the language a component switches to through react-i18next's proxy of the instance", async () => {
    const i18n = createI18n('ja');
    await loadScreenTexts(i18n);
    // What useTranslation() hands a component: a proxy, not the instance itself.
    const proxied = new Proxy(i18n, {});
    await switchLanguage(proxied, 'en');
    expect(i18n.t('consent.title')).toBe(en.consent.title);
    expect(i18n.t('fields.adult_income.age.label')).toBe(datasetTranslations('en').fields.adult_income!.age!.label);
  });

  it('split each language into two parts that together hold every text once', () => {
    for (const texts of [ja, en]) {
      const shell = textPart(texts, 'shell');
      const screens = textPart(texts, 'screens');
      const keys = (o: object, prefix = ''): string[] =>
        Object.entries(o).flatMap(([k, v]) => (v && typeof v === 'object' && !Array.isArray(v) ? keys(v, `${prefix}${k}.`) : [`${prefix}${k}`]));
      const all = keys(texts).sort();
      expect([...keys(shell), ...keys(screens)].sort()).toEqual(all);
      expect(keys(shell).length).toBeLessThan(all.length / 2);
    }
  });
});

describe('LanguageToggle', () => {
  it('switches to English and saves the choice under the product key', async () => {
    const { i18n } = renderScreen(<LanguageToggle />);
    expect(i18n.language).toBe('ja');
    expect(screen.getByRole('button', { name: '日本語', pressed: true })).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'English', pressed: false }));
    await waitFor(() => expect(i18n.language).toBe('en'));
    await screen.findByRole('button', { name: 'English', pressed: true });
    expect(window.localStorage.getItem('xai-decision-lab-language')).toBe('en');
    expect(document.documentElement.lang).toBe('en');
  });
});

describe('ErrorDisplay', () => {
  it('shows the kind title, message and tips in Japanese', () => {
    renderScreen(<ErrorDisplay kind="session" />);
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe(ja.errors.display.kinds.session.title);
    expect(screen.getByText(ja.errors.display.kinds.session.message)).toBeTruthy();
    for (const tip of ja.errors.display.tips.session) expect(screen.getByText(tip)).toBeTruthy();
  });

  it('shows the pre-experiment subtitle in English', () => {
    renderScreen(<ErrorDisplay kind="dataset_error_pre" />, { lng: 'en' });
    expect(screen.getByText(en.errors.display.kinds.dataset_error_pre.subtitle)).toBeTruthy();
    expect(screen.getByText(en.errors.display.kinds.dataset_error_pre.message)).toBeTruthy();
  });

  it('labels retry as resuming when there is something to resume', () => {
    const onRetry = vi.fn();
    renderScreen(<ErrorDisplay kind="network" onRetry={onRetry} resume={{ participantId: 'AB12CD34', preCount: 57, mainCount: 0 }} />);
    expect(screen.getByText(ja.errors.display.resumeInfo.title)).toBeTruthy();
    expect(screen.getByText('参加者ID: AB12CD34')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: ja.errors.display.retryResume }));
    expect(onRetry).toHaveBeenCalledTimes(1);
  });

  it('labels retry plainly without resume data and hides retry without a handler', () => {
    const { unmount } = renderScreen(<ErrorDisplay kind="network" onRetry={() => {}} />);
    expect(screen.getByRole('button', { name: ja.errors.display.retry })).toBeTruthy();
    unmount();
    renderScreen(<ErrorDisplay kind="network" />);
    expect(screen.queryByRole('button', { name: ja.errors.display.retry })).toBeNull();
  });

  it('alerts when resuming with an empty ID and navigates with a normalised one', async () => {
    const alert = vi.fn();
    vi.stubGlobal('alert', alert);
    const { router } = renderScreen(<ErrorDisplay kind="general" />, { path: '/error-test' });
    fireEvent.click(screen.getByRole('button', { name: ja.errors.display.resumeButton }));
    expect(alert).toHaveBeenCalledWith(ja.errors.display.enterParticipantId);
    fireEvent.change(screen.getByLabelText(ja.errors.display.resumeById), { target: { value: 'ab12-cd34' } });
    fireEvent.click(screen.getByRole('button', { name: ja.errors.display.resumeButton }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/resume'));
    expect(router.state.location.search).toBe('?participant_id=AB12CD34');
    vi.unstubAllGlobals();
  });
});

describe('CriticalErrorBanner', () => {
  it('appears when a critical error is logged and can be dismissed', async () => {
    const { errorLog } = await import('../../web/lib/error-log');
    const { CriticalErrorBanner } = await import('../../web/components/ui/critical-error-banner');
    renderScreen(<CriticalErrorBanner />);
    expect(screen.queryByRole('alert')).toBeNull();
    act(() => {
      errorLog.report('save', 'answer could not be stored', {}, 'high');
    });
    expect(screen.queryByRole('alert')).toBeNull();
    act(() => {
      errorLog.report('save', 'answer could not be stored', {}, 'critical');
    });
    expect(screen.getByRole('alert').textContent).toContain(ja.app.criticalError);
    fireEvent.click(screen.getByRole('button', { name: ja.common.dismiss }));
    expect(screen.queryByRole('alert')).toBeNull();
  });
});

describe('DataFields', () => {
  it('shows an API record as labelled fields, like records as a table, and keeps the JSON behind a toggle', () => {
    const data = { case_id: 'compas_main_a_001', is_correct: false, ai_probability: 0.812345678, metadata: { user_model: null }, shares: [{ feature: 'age', importance: 0.5 }, { feature: 'sex', importance: -0.5 }] };
    renderScreen(<DataFields data={data} />);
    const field = (label: string) => screen.getByText(label, { selector: 'dt' }).nextElementSibling!.textContent;
    expect(field('Case id')).toBe('compas_main_a_001');
    expect(field('Is correct')).toBe(ja.common.no);
    expect(field('Ai probability')).toBe('0.812346');
    expect(field('User model')).toBe('—');
    const table = screen.getByRole('table');
    expect([...table.querySelectorAll('th')].map((th) => th.textContent)).toEqual(['Feature', 'Importance']);
    expect(table.querySelectorAll('tbody tr')).toHaveLength(2);
    expect(screen.getByText(ja.common.showJson).closest('details')!.querySelector('pre')!.textContent).toBe(JSON.stringify(data, null, 2));
  });
});

describe('a screen that cannot be fetched', () => {
  it('says so with a reload in the layout, instead of a blank page', async () => {
    const Broken = lazy(() => Promise.reject(new TypeError('Failed to fetch dynamically imported module')));
    const router = createMemoryRouter([{ element: <Layout />, children: [{ path: '/', element: <Broken /> }] }], { initialEntries: ['/'] });
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    render(
      <Providers i18n={allTextsI18n('en')}>
        <RouterProvider router={router} />
      </Providers>,
    );
    const failed = await screen.findByTestId('screen-failed');
    expect(failed.textContent).toContain(en.app.screenFailed);
    expect(screen.getByRole('button', { name: en.app.reload })).toBeTruthy();
    expect(screen.getByRole('banner')).toBeTruthy();
    errors.mockRestore();
  });
});

