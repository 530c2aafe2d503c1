import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { RouterProvider } from 'react-router';
import { createRouter } from './app/router';
import { Providers } from './app/providers';
import { createI18n } from './i18n';
import { installDebugHelpers } from './lib/debug-helpers';
import { logger } from './lib/error-log';
import './styles.css';

installDebugHelpers(window);

window.addEventListener('unhandledrejection', (event) => {
  logger.error('unhandled_rejection', String(event.reason), {});
});
window.addEventListener('error', (event) => {
  logger.error('uncaught_error', event.message, { source: event.filename, line: event.lineno });
});

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <Providers i18n={createI18n()}>
      <RouterProvider router={createRouter()} />
    </Providers>
  </StrictMode>,
);
