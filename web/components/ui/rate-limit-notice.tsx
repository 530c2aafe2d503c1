import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { onRateLimited } from '../../lib/api';

/**
 * While a call waits because the server asked it to come back later (429), the person is told so
 * in their language, with the seconds left; nothing they entered is lost and nothing is to do.
 */
export function RateLimitNotice() {
  const { t } = useTranslation();
  const [until, setUntil] = useState<number | null>(null);
  const [now, setNow] = useState(() => Date.now());
  useEffect(
    () =>
      onRateLimited((next) => {
        setUntil(next);
        setNow(Date.now());
      }),
    [],
  );
  useEffect(() => {
    if (until === null) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [until]);
  if (until === null) return null;
  return (
    <p role="status" className="notice notice-warning rate-limit-notice" data-testid="rate-limit-notice">
      {t('app.rateLimited', { seconds: Math.max(1, Math.ceil((until - now) / 1000)) })}
    </p>
  );
}
