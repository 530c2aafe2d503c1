import { Button, Dialog, DialogTrigger, Heading, Modal, ModalOverlay } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import type { ParticipantCase } from '../../../worker/schemas/experiment';
import type { DatasetType } from '../../../worker/schemas/study';
import { formatFeature } from '../../lib/case-format';

/**
 * One case as participants see it: the task, every feature with its value in words, and a
 * dialog describing each field. Shows its loading, dataset-error and translation-loading states.
 */
export function CaseCard({
  case: item,
  datasetType,
  heading,
  loading = false,
}: {
  case: ParticipantCase | null;
  datasetType: DatasetType | null;
  heading?: string;
  loading?: boolean;
}) {
  const { t, i18n, ready } = useTranslation();
  if (!ready) return <section className="case-card">{t('caseCard.translationLoading')}</section>;
  if (loading || (!item && datasetType)) {
    return (
      <section className="case-card" aria-busy="true">
        {t('caseCard.loading')}
      </section>
    );
  }
  if (!datasetType || !item || item.dataset_type !== datasetType) {
    return (
      <section className="case-card" role="alert">
        {t('caseCard.datasetError')}
      </section>
    );
  }
  const fields = Object.keys(t(`fields.${datasetType}`, { returnObjects: true }) as Record<string, unknown>);
  return (
    <section className="case-card" data-case-id={item.case_id} aria-label={heading ?? t('caseCard.heading', { number: item.case_number })}>
      <div className="case-card-header">
        <h2>{heading ?? t('caseCard.heading', { number: item.case_number })}</h2>
        <DialogTrigger>
          <Button className="button button-small">{t('caseCard.details')}</Button>
          <ModalOverlay className="modal-overlay" isDismissable>
            <Modal className="modal">
              <Dialog className="dialog">
                {({ close }) => (
                  <>
                    <Heading slot="title">{t('caseCard.detailsTitle')}</Heading>
                    <dl className="field-descriptions">
                      {fields.map((field) => (
                        <div key={field}>
                          <dt>{t(`fields.${datasetType}.${field}.label`)}</dt>
                          <dd>{t(`fields.${datasetType}.${field}.description`)}</dd>
                        </div>
                      ))}
                    </dl>
                    <Button className="button" onPress={close}>
                      {t('common.close')}
                    </Button>
                  </>
                )}
              </Dialog>
            </Modal>
          </ModalOverlay>
        </DialogTrigger>
      </div>
      <p className="case-task">{t(`datasets.${datasetType}.task`)}</p>
      <dl className="case-features">
        {fields.map((field) => (
          <div key={field} className="case-feature" data-field={field}>
            <dt>{t(`fields.${datasetType}.${field}.label`)}</dt>
            <dd>{formatFeature(t, i18n.language, datasetType, field, item.features[field])}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}
