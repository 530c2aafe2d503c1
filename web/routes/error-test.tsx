import { useTranslation } from 'react-i18next';
import { ErrorTestPicker } from '../features/errors/error-test';
import { NotFound } from '../features/errors/not-found';
import { useDebugTools } from '../lib/use-debug-tools';

/** Off in production but for an administrator: the page is a researcher's tool, not the study's. */
export default function ErrorTestRoute() {
  const { t } = useTranslation();
  const tools = useDebugTools(true);
  if (tools === 'pending') return <p className="page">{t('common.loading')}</p>;
  return tools === 'on' ? <ErrorTestPicker /> : <NotFound />;
}
