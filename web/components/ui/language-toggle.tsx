import { ToggleButton, ToggleButtonGroup } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import { LANGUAGES, languageSchema } from '../../../worker/schemas/study';

/** ja / en switch; i18n saves the choice under the product-named storage key. */
export function LanguageToggle() {
  const { t, i18n } = useTranslation();
  return (
    <ToggleButtonGroup
      aria-label={t('language.label')}
      selectionMode="single"
      disallowEmptySelection
      selectedKeys={[i18n.language]}
      onSelectionChange={(keys) => {
        const next = languageSchema.safeParse([...keys][0]);
        if (next.success) void i18n.changeLanguage(next.data);
      }}
      className="language-toggle"
    >
      {LANGUAGES.map((lng) => (
        <ToggleButton key={lng} id={lng} className="language-toggle-button">
          {t(`language.${lng}`)}
        </ToggleButton>
      ))}
    </ToggleButtonGroup>
  );
}
