import { useTranslation } from 'react-i18next';
import { studyConfig } from '../../../worker/schemas/study-config';

/** The study's contacts from its configuration (`worker/schemas/study-config.ts`), with mail links. */
export function StudyContacts() {
  const { t } = useTranslation();
  return (
    <ul className="plain-list study-contacts">
      {studyConfig.contacts.map((c) => (
        <li key={c.role}>
          {t(`consent.roles.${c.role}`)}
          {t('common.colon')}
          {t('consent.person', { name: c.name, affiliation: c.affiliation })} <a href={`mailto:${c.email}`}>{c.email}</a>
        </li>
      ))}
    </ul>
  );
}
