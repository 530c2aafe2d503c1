import { render } from '@testing-library/react';
import type { ReactNode } from 'react';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { Providers } from '../../web/app/providers';
import { datasetTranslations } from '../../worker/schemas/datasets';
import { createI18n } from '../../web/i18n';
import en from '../../web/i18n/en.json';
import ja from '../../web/i18n/ja.json';

/** An i18next instance with every text in both languages, the datasets' included, as a screen has them once its chunk loaded. */
export function allTextsI18n(lng: 'ja' | 'en' = 'ja') {
  const i18n = createI18n(lng, { ja, en });
  for (const language of ['ja', 'en'] as const) i18n.addResourceBundle(language, 'translation', datasetTranslations(language), true, true);
  return i18n;
}

/** Renders a screen with the app's real providers and i18n, at a route, in the given language. */
export function renderScreen(element: ReactNode, options: { lng?: 'ja' | 'en'; path?: string } = {}) {
  const i18n = allTextsI18n(options.lng ?? 'ja');
  const path = options.path ?? '/';
  const router = createMemoryRouter(
    [
      { path, element },
      { path: '*', element: <p data-testid="navigated" /> },
    ],
    { initialEntries: [path] },
  );
  const view = render(
    <Providers i18n={i18n}>
      <RouterProvider router={router} />
    </Providers>,
  );
  return { ...view, router, i18n };
}
