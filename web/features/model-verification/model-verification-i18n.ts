/** The model-verification page's texts, added when its chunk is used (keys under `modelVerification.`). */
import { useTranslation } from 'react-i18next';
import en from './i18n/en.json';
import ja from './i18n/ja.json';

export function useModelVerificationTexts() {
  const { i18n } = useTranslation();
  if (i18n.getResource('ja', 'translation', 'modelVerification.title') === undefined) {
    i18n.addResourceBundle('ja', 'translation', { modelVerification: ja }, true, false);
    i18n.addResourceBundle('en', 'translation', { modelVerification: en }, true, false);
  }
}
