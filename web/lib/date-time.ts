import { useTranslation } from 'react-i18next';

/** The locale the interface's language formats numbers and dates in. */
export const localeOf = (language: string) => (language === 'ja' ? 'ja-JP' : 'en-US');

/** A formatter of stored timestamps in the interface's language (2026/11/26 12:11:40 in Japanese). */
export function useDateTime() {
  const { i18n } = useTranslation();
  const locale = localeOf(i18n.language);
  return (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString(locale) : '—');
}
