/**
 * The admin screens' texts, added to the app's i18next instance when their chunk is used, so the
 * participant's first download carries none of them. Keys live under `admin.`.
 */
import { useTranslation } from 'react-i18next';
import en from './i18n/en.json';
import ja from './i18n/ja.json';

/** Call at the top of an admin route, before anything renders an `admin.` text. */
export function useAdminTexts() {
  const { i18n } = useTranslation();
  if (i18n.getResource('ja', 'translation', 'admin.auth.title') === undefined) {
    i18n.addResourceBundle('ja', 'translation', { admin: ja }, true, false);
    i18n.addResourceBundle('en', 'translation', { admin: en }, true, false);
  }
}
