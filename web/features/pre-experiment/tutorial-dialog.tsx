import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { FullScreenDialog } from '../../components/ui/full-screen-dialog';
import type { ParticipantCase } from '../../../worker/schemas/experiment';
import type { DatasetType } from '../../../worker/schemas/study-config';
import { CaseCard } from '../../components/ui/case-card';
import { JudgementInput } from '../../components/ui/judgement-input';
import { ProgressBar } from '../../components/ui/progress-bar';
import { useBetweenCasesPause } from '../../lib/use-between-cases-pause';

/**
 * The practice cases: the same screens and the same 0.8 s pause between cases as the real
 * ones, each case opening at the top of the window; nothing is sent. `cases` is null while
 * loading and empty when they could not be fetched.
 */
export function TutorialDialog({
  datasetType,
  cases,
  isOpen,
  onDone,
  onClose,
}: {
  datasetType: DatasetType;
  cases: ParticipantCase[] | null;
  isOpen: boolean;
  onDone: () => void;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const [index, setIndex] = useState(0);
  const [pausing, setPausing] = useState(false);
  const scroller = useRef<HTMLDivElement>(null);
  const pauseBeforeNext = useBetweenCasesPause();

  useEffect(() => {
    if (isOpen) setIndex(0);
  }, [isOpen]);

  useEffect(() => {
    scroller.current?.scrollTo({ top: 0 });
  }, [index]);

  // The spec's pause between cases, timed from the answer itself as in the real cases.
  const answered = () => {
    setPausing(true);
    pauseBeforeNext(() => {
      setPausing(false);
      if (index + 1 >= (cases?.length ?? 0)) onDone();
      else setIndex(index + 1);
    });
  };

  const total = Math.max(cases?.length ?? 0, 1);
  const current = cases?.[index] ?? null;
  const title = t('pre.tutorialCase', { n: Math.min(index + 1, total), total });

  return (
    <FullScreenDialog title={title} isOpen={isOpen} onClose={onClose} className="tutorial-dialog" scroller={scroller}>
      <ProgressBar phase="preparation" value={index} max={total} />
      <p className="notice notice-info">{t('pre.tutorialNotSent')}</p>
      {cases && cases.length === 0 ? (
        <p role="alert" className="notice notice-error">
          {t('pre.caseSetFailed')}
        </p>
      ) : (
        <div className="case-layout">
          <CaseCard case={current} datasetType={datasetType} loading={!cases} heading={title} />
          {current ? <JudgementInput key={current.case_id} datasetType={datasetType} disabled={pausing} onSubmit={answered} /> : null}
        </div>
      )}
    </FullScreenDialog>
  );
}
