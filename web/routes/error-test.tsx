import { lazy, Suspense } from 'react';
import { useTranslation } from 'react-i18next';
import { NotFound } from '../features/errors/not-found';
import { useDebugTools } from '../lib/use-debug-tools';

/** The tool itself is fetched only when it is to be shown: a visitor in production downloads none of it. */
const ErrorTestPicker = lazy(async () => ({ default: (await import('../features/errors/error-test')).ErrorTestPicker }));

/** Off in production but for an administrator: the page is a researcher's tool, not the study's. */
export default function ErrorTestRoute() {
  const { t } = useTranslation();
  const tools = useDebugTools(true);
  const loading = <p className="page">{t('common.loading')}</p>;
  if (tools === 'pending') return loading;
  if (tools !== 'on') return <NotFound />;
  return (
    <Suspense fallback={loading}>
      <ErrorTestPicker />
    </Suspense>
  );
}
