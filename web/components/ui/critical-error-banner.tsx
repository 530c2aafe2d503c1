import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorLog, type ErrorEntry } from '../../lib/error-log';

/** The error log's alert callback: a critical error anywhere in the app is shown to the person. */
export function CriticalErrorBanner() {
  const { t } = useTranslation();
  const [entry, setEntry] = useState<ErrorEntry | null>(null);
  useEffect(() => errorLog.onCritical(setEntry), []);
  if (!entry) return null;
  return (
    <div role="alert" className="notice notice-error critical-banner">
      <span>{t('app.criticalError')}</span>
      <button type="button" className="button" onClick={() => setEntry(null)}>
        {t('common.dismiss')}
      </button>
    </div>
  );
}
