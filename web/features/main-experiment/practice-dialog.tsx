import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { FullScreenDialog } from '../../components/ui/full-screen-dialog';
import type { MainCase } from '../../../worker/schemas/main-experiment';
import type { DatasetType } from '../../../worker/schemas/study-config';
import { logger } from '../../lib/error-log';
import { CaseFlow } from './case-flow';
import type { CasePlan } from './condition-plan';
import { fetchPracticeCase } from './load';

/**
 * The main experiment's tutorial (part 2 §2.1): one practice case through the same steps as the
 * real ones (the participant's condition's `plan`), with a real explanation of that case; nothing
 * is stored. It is done once its survey step is answered.
 */
export function PracticeDialog({
  sessionId,
  datasetType,
  plan,
  isOpen,
  onClose,
  onDone,
}: {
  sessionId: string;
  datasetType: DatasetType;
  plan: CasePlan;
  isOpen: boolean;
  onClose: () => void;
  onDone: () => void;
}) {
  const { t } = useTranslation();
  const [practice, setPractice] = useState<MainCase | null | 'failed'>(null);
  const [run, setRun] = useState(0);
  const scroller = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (!isOpen || practice) return;
    let cancelled = false;
    fetchPracticeCase(datasetType)
      .then((c) => !cancelled && setPractice(c))
      .catch((err: unknown) => {
        logger.error('tutorial', 'practice case unavailable', { error: String(err) });
        if (!cancelled) setPractice('failed');
      });
    return () => {
      cancelled = true;
    };
  }, [isOpen, practice, datasetType]);

  // Reopening starts the practice case afresh.
  useEffect(() => {
    if (isOpen) setRun((n) => n + 1);
  }, [isOpen]);

  return (
    <FullScreenDialog title={t('main.tutorial.title')} isOpen={isOpen} onClose={onClose} className="tutorial-dialog" scroller={scroller}>
      <p className="notice notice-info">{t('main.tutorial.notSent')}</p>
      {practice === 'failed' ? (
        <p role="alert" className="notice notice-error">
          {t('main.tutorial.unavailable')}
        </p>
      ) : practice ? (
        <CaseFlow key={run} sessionId={sessionId} item={practice} datasetType={datasetType} alpha={practice.alignment_alpha} plan={plan} scroller={scroller} onDone={onDone} />
      ) : (
        <p>{t('common.loading')}</p>
      )}
    </FullScreenDialog>
  );
}
