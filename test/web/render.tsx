import { render } from '@testing-library/react';
import type { ReactNode } from 'react';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { Providers } from '../../web/app/providers';
import { createI18n } from '../../web/i18n';
import en from '../../web/i18n/en.json';

/** Renders a screen with the app's real providers and i18n, at a route, in the given language. */
export function renderScreen(element: ReactNode, options: { lng?: 'ja' | 'en'; path?: string } = {}) {
  const i18n = createI18n(options.lng ?? 'ja', { en });
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
