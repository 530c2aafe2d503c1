import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createAppRoutes } from './app/router';
import { Providers } from './app/providers';
import { createI18n, initialLanguage, loadLanguage } from './i18n';
import { installDebugHelpers } from './lib/debug-helpers';
import { logger } from './lib/error-log';
import { loadStudyDatasets } from './lib/study-datasets';
import './styles.css';

installDebugHelpers(window);

window.addEventListener('unhandledrejection', (event) => {
  logger.error('unhandled_rejection', String(event.reason), {});
});
window.addEventListener('error', (event) => {
  logger.error('uncaught_error', event.message, { source: event.filename, line: event.lineno });
});

const language = initialLanguage();
const i18n = createI18n(language);
// A participant who chose another language sees it from the first screen (ja is already loaded).
const translations = loadLanguage(i18n, language).catch((err: unknown) =>
  logger.error('translation_load', 'translation could not be loaded; showing Japanese', { error: String(err) }),
);
// Datasets added on the dashboard since this build (fetched alongside; either order leaves every
// loaded language with their texts). Without them the built-in ones still serve.
const datasets = loadStudyDatasets(i18n).catch((err: unknown) => logger.error('datasets_load', 'added datasets could not be loaded', { error: String(err) }));
void Promise.all([translations, datasets]).finally(async () => {
  // The first render is already in the participant's language.
  await i18n.changeLanguage(language).catch((err: unknown) => logger.error('translation_load', 'language could not be switched', { error: String(err) }));
  const AppRoutes = createAppRoutes(i18n);
  createRoot(document.getElementById('root')!).render(
    <StrictMode>
      <Providers i18n={i18n}>
        <AppRoutes />
      </Providers>
    </StrictMode>,
  );
});
