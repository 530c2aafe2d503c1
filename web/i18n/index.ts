import i18next, { type i18n } from 'i18next';
import { initReactI18next } from 'react-i18next';
import { datasetTranslations } from '../../worker/schemas/datasets';
import { isLanguage, LANGUAGES, type Language } from '../../worker/schemas/study-config';
import { readStorage, storageKeys, writeStorage } from '../lib/storage-keys';
import ja from './ja.json';

export type Translation = typeof ja;

/**
 * Japanese, the default, is in the first download; other languages are fetched when chosen, so
 * most participants never download a translation they do not read.
 */
const loaders: Record<Exclude<Language, 'ja'>, () => Promise<{ default: Translation }>> = {
  en: () => import('./en.json'),
};

/** The saved language, else ja: the spec's browser-language detection always yields ja. */
export function initialLanguage(): Language {
  const saved = readStorage(storageKeys.language);
  return isLanguage(saved) ? saved : LANGUAGES[0];
}

/** Makes sure a language's texts are loaded into the instance. */
export async function loadLanguage(instance: i18n, lng: Language): Promise<void> {
  // Checked by a key of the app's own texts: a lazily loaded screen may have added its texts already.
  if (lng === 'ja' || instance.getResource(lng, 'translation', 'app.title') !== undefined) return;
  instance.addResourceBundle(lng, 'translation', (await loaders[lng]()).default, true, false);
  addDatasetTexts(instance, lng);
}

/** The datasets' texts come from their definitions (worker/schemas/datasets.ts), under the same keys as the app's own. */
function addDatasetTexts(instance: i18n, lng: Language): void {
  instance.addResourceBundle(lng, 'translation', datasetTranslations(lng), true, true);
}

/** Loads a language's texts, then switches to it (the choice is saved by the instance). */
export async function switchLanguage(instance: i18n, lng: Language): Promise<void> {
  await loadLanguage(instance, lng);
  await instance.changeLanguage(lng);
}

/** An i18next instance starting in `lng`; pass its texts in `preloaded` unless it is ja. */
export function createI18n(lng: Language = initialLanguage(), preloaded: Partial<Record<Language, Translation>> = {}): i18n {
  const instance = i18next.createInstance();
  const resources = Object.fromEntries(Object.entries({ ja, ...preloaded }).map(([key, translation]) => [key, { translation }]));
  void instance.use(initReactI18next).init({
    resources,
    lng,
    fallbackLng: LANGUAGES[0],
    supportedLngs: [...LANGUAGES],
    interpolation: { escapeValue: false },
    returnNull: false,
    initAsync: false,
  });
  for (const language of Object.keys(resources)) if (isLanguage(language)) addDatasetTexts(instance, language);
  instance.on('languageChanged', (next) => {
    writeStorage(storageKeys.language, next);
    document.documentElement.lang = next;
  });
  document.documentElement.lang = lng;
  return instance;
}
