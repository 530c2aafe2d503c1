import { useTranslation } from 'react-i18next';
import { LANGUAGES } from '../../../worker/schemas/study-config';
import { switchLanguage } from '../../i18n';
import { logger } from '../../lib/error-log';

/**
 * ja / en switch; i18n saves the choice under the product-named storage key. Plain toggle
 * buttons (aria-pressed): it is on every page, so it carries no component-kit code.
 */
export function LanguageToggle() {
  const { t, i18n } = useTranslation();
  return (
    <div role="group" aria-label={t('language.label')} className="language-toggle">
      {LANGUAGES.map((lng) => (
        <button
          key={lng}
          type="button"
          className="language-toggle-button"
          aria-pressed={i18n.language === lng}
          onClick={() =>
            void switchLanguage(i18n, lng).catch((err: unknown) => logger.error('translation_load', `could not switch to ${lng}`, { error: String(err) }))
          }
        >
          {t(`language.${lng}`)}
        </button>
      ))}
    </div>
  );
}
