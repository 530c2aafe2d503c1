import i18next, { type i18n } from 'i18next';
import { initReactI18next } from 'react-i18next';
import { datasetIndexTranslations, onDatasetsRegistered } from '../../worker/schemas/dataset-index';
import { isLanguage, LANGUAGES, type Language } from '../../worker/schemas/study-config';
import { readStorage, storageKeys, writeStorage } from '../lib/storage-keys';
import jaShell from './ja.json?part=shell';
import type ja from './ja.json';

export type Translation = typeof ja;
type Texts = Record<string, object>;

/**
 * Each language's texts come in two parts (web/i18n/parts.ts). Japanese, the default, has its
 * shell in the first download; every other part is fetched when first needed: another language's
 * when it is chosen, the study screens' with the first screen that shows them, so a participant
 * never downloads a translation they do not read and the entry page carries only its own.
 */
const shells: Record<Exclude<Language, 'ja'>, () => Promise<{ default: Texts }>> = {
  en: () => import('./en.json?part=shell'),
};
const screens: Record<Language, () => Promise<{ default: Texts }>> = {
  ja: () => import('./ja.json?part=screens'),
  en: () => import('./en.json?part=screens'),
};
/** A key of each part, by which an instance tells whether the part is loaded in a language. */
const SHELL_KEY = 'app.title';
const SCREENS_KEY = 'caseCard.heading';

/**
 * The texts' stores (an instance's `store`) whose study screens' texts were asked for: later
 * languages and datasets get them too. Kept by store, not by instance: react-i18next hands
 * components a proxy of the instance, whose store is the instance's own.
 */
const withScreens = new WeakSet<object>();
/** The stores that hear of datasets registered later (added on the dashboard), to give them their screens' texts. */
const listening = new WeakSet<object>();

/** The saved language, else ja: the spec's browser-language detection always yields ja. */
export function initialLanguage(): Language {
  const saved = readStorage(storageKeys.language);
  return isLanguage(saved) ? saved : LANGUAGES[0];
}

const has = (instance: i18n, lng: Language, key: string) => instance.getResource(lng, 'translation', key) !== undefined;

/** The study screens' texts in one language: the app's own, then the datasets' columns and values from their definitions. */
async function addScreenTexts(instance: i18n, lng: Language): Promise<void> {
  if (has(instance, lng, SCREENS_KEY)) return;
  const [texts, { datasetTranslations }] = await Promise.all([screens[lng](), import('../../worker/schemas/datasets')]);
  instance.addResourceBundle(lng, 'translation', texts.default, true, false);
  instance.addResourceBundle(lng, 'translation', datasetTranslations(lng), true, true);
}

/** Makes sure a language's texts are loaded into the instance: its shell, and its screens' texts once any screen needed them. */
export async function loadLanguage(instance: i18n, lng: Language): Promise<void> {
  if (lng !== 'ja' && !has(instance, lng, SHELL_KEY)) {
    instance.addResourceBundle(lng, 'translation', (await shells[lng]()).default, true, false);
    instance.addResourceBundle(lng, 'translation', datasetIndexTranslations(lng), true, true);
  }
  if (withScreens.has(instance.store)) await addScreenTexts(instance, lng);
}

/** The pending or done loads of the screens' texts, by store and language (one promise each, as React's `use` needs). */
const screenLoads = new WeakMap<object, Map<Language, Promise<void>>>();

/**
 * The study screens' texts in the instance's language (a lazily loaded screen awaits this with its
 * code); from then on, every language loaded and every dataset registered brings its screens' texts.
 * The same language's call gets the same promise.
 */
export function loadScreenTexts(instance: i18n): Promise<void> {
  const lng = isLanguage(instance.language) ? instance.language : LANGUAGES[0];
  const loads = screenLoads.get(instance.store) ?? new Map<Language, Promise<void>>();
  screenLoads.set(instance.store, loads);
  let load = loads.get(lng);
  if (!load) {
    load = (async () => {
      // Marked before the fetch, so a language chosen meanwhile brings its screens' texts too.
      withScreens.add(instance.store);
      const { datasetTranslations } = await import('../../worker/schemas/datasets');
      // Listened for once the definitions are here (a failed fetch leaves it to the next call).
      if (!listening.has(instance.store)) {
        listening.add(instance.store);
        onDatasetsRegistered((fresh) => {
          for (const language of LANGUAGES) if (has(instance, language, SCREENS_KEY)) instance.addResourceBundle(language, 'translation', datasetTranslations(language, fresh), true, true);
        });
      }
      await addScreenTexts(instance, lng);
    })();
    // A failed load (the network) is tried again by the next call.
    load.catch(() => loads.delete(lng));
    loads.set(lng, load);
  }
  return load;
}

/** Loads a language's texts, then switches to it (the choice is saved by the instance). */
export async function switchLanguage(instance: i18n, lng: Language): Promise<void> {
  await loadLanguage(instance, lng);
  await instance.changeLanguage(lng);
}

/**
 * An i18next instance starting in `lng`, with the Japanese shell and the texts in `preloaded` (a
 * language's whole file, as tests pass them, counts as both its parts).
 */
export function createI18n(lng: Language = initialLanguage(), preloaded: Partial<Record<Language, Translation>> = {}): i18n {
  const instance = i18next.createInstance();
  const resources: Partial<Record<Language, { translation: Texts }>> = { ja: { translation: jaShell } };
  for (const [language, texts] of Object.entries(preloaded)) resources[language as Language] = { translation: texts };
  void instance.use(initReactI18next).init({
    resources,
    lng,
    fallbackLng: LANGUAGES[0],
    supportedLngs: [...LANGUAGES],
    interpolation: { escapeValue: false },
    returnNull: false,
    initAsync: false,
  });
  for (const language of LANGUAGES) if (resources[language]) instance.addResourceBundle(language, 'translation', datasetIndexTranslations(language), true, true);
  instance.on('languageChanged', (next) => {
    writeStorage(storageKeys.language, next);
    document.documentElement.lang = next;
  });
  document.documentElement.lang = lng;
  return instance;
}
