import { use, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { loadScreenTexts } from '.';

/**
 * Shows `children` once the study screens' texts are loaded (suspending until then): for a part
 * of the first page that only some visitors see and that speaks with those texts.
 */
export function WithScreenTexts({ children }: { children: ReactNode }) {
  const { i18n } = useTranslation();
  use(loadScreenTexts(i18n));
  return children;
}
