import { useEffect, useState } from 'react';
import { Dialog, Heading, Modal, ModalOverlay } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import type { ParticipantCase } from '../../../worker/schemas/experiment';
import type { DatasetType } from '../../../worker/schemas/study';
import { CaseCard } from '../../components/ui/case-card';
import { JudgementInput } from '../../components/ui/judgement-input';
import { ProgressBar } from '../../components/ui/progress-bar';
import { logger } from '../../lib/error-log';
import { fetchTutorialCases } from './load';

/** The practice cases: same screens as the real ones, nothing is sent. */
export function TutorialDialog({ datasetType, isOpen, onDone, onClose }: { datasetType: DatasetType; isOpen: boolean; onDone: () => void; onClose: () => void }) {
  const { t } = useTranslation();
  const [cases, setCases] = useState<ParticipantCase[] | null>(null);
  const [index, setIndex] = useState(0);

  useEffect(() => {
    if (!isOpen) return;
    setIndex(0);
    fetchTutorialCases(datasetType)
      .then(setCases)
      .catch((err: unknown) => {
        logger.error('tutorial', 'tutorial cases unavailable', { error: String(err) });
        setCases([]);
      });
  }, [isOpen, datasetType]);

  const total = cases?.length ?? 0;
  const current = cases?.[index] ?? null;

  return (
    <ModalOverlay className="modal-overlay" isOpen={isOpen} onOpenChange={(open) => (open ? undefined : onClose())} isDismissable>
      <Modal className="modal modal-wide">
        <Dialog className="dialog tutorial-dialog">
          <Heading slot="title">{t('pre.tutorialCase', { n: Math.min(index + 1, Math.max(total, 1)), total: Math.max(total, 1) })}</Heading>
          <ProgressBar phase="preparation" value={index} max={Math.max(total, 1)} />
          <p className="notice notice-info">{t('pre.tutorialNotSent')}</p>
          {cases && total === 0 ? (
            <p role="alert" className="notice notice-error">
              {t('pre.caseSetFailed')}
            </p>
          ) : (
            <div className="case-layout">
              <CaseCard case={current} datasetType={datasetType} loading={!cases} heading={t('pre.tutorialCase', { n: index + 1, total })} />
              {current ? (
                <JudgementInput
                  key={current.case_id}
                  datasetType={datasetType}
                  onSubmit={() => {
                    if (index + 1 >= total) onDone();
                    else setIndex(index + 1);
                  }}
                />
              ) : null}
            </div>
          )}
        </Dialog>
      </Modal>
    </ModalOverlay>
  );
}
