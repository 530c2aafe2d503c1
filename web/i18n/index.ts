import i18next, { type i18n } from 'i18next';
import { initReactI18next } from 'react-i18next';
import { LANGUAGES, languageSchema, type Language } from '../../worker/schemas/study';
import { readStorage, storageKeys, writeStorage } from '../lib/storage-keys';
import en from './en.json';
import ja from './ja.json';

export const resources = { ja: { translation: ja }, en: { translation: en } } as const;

/** The saved language, else ja: the spec's browser-language detection always yields ja. */
export function initialLanguage(): Language {
  const parsed = languageSchema.safeParse(readStorage(storageKeys.language));
  return parsed.success ? parsed.data : LANGUAGES[0];
}

export function createI18n(lng: Language = initialLanguage()): i18n {
  const instance = i18next.createInstance();
  void instance.use(initReactI18next).init({
    resources,
    lng,
    fallbackLng: LANGUAGES[0],
    supportedLngs: [...LANGUAGES],
    interpolation: { escapeValue: false },
    returnNull: false,
    initAsync: false,
  });
  instance.on('languageChanged', (next) => {
    writeStorage(storageKeys.language, next);
    document.documentElement.lang = next;
  });
  document.documentElement.lang = lng;
  return instance;
}
