import { Button, Dialog, DialogTrigger, Heading, Modal, ModalOverlay } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import type { ParticipantCase } from '../../../worker/schemas/experiment';
import type { DatasetType } from '../../../worker/schemas/study-config';
import { featureMatrixOf, formatFeature } from '../../lib/case-format';

/**
 * One case as participants see it: the task, every feature with its value in words (compact
 * tiles, two or more to a row, so a case fits a phone screen), and a dialog describing each
 * field. Shows its loading, dataset-error and translation-loading states.
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
  const matrix = featureMatrixOf(datasetType);
  const inMatrix = new Set(matrix?.rows.flatMap((r) => r.fields));
  const value = (field: string) => formatFeature(t, i18n.language, datasetType, field, item.features[field]);
  const title = heading ?? t('caseCard.heading', { number: item.case_number });
  return (
    <section className="case-card" data-case-id={item.case_id} aria-label={title}>
      <div className="case-card-header">
        <h2>{title}</h2>
        <DialogTrigger>
          <Button className="button button-small">{t('caseCard.details')}</Button>
          <ModalOverlay className="modal-overlay" isDismissable>
            <Modal className="modal">
              <Dialog className="dialog">
                {({ close }) => (
                  <>
                    <div className="dialog-header">
                      <Heading slot="title">{t('caseCard.detailsTitle')}</Heading>
                      <Button className="button button-small" onPress={close}>
                        {t('common.close')}
                      </Button>
                    </div>
                    <dl className="field-descriptions">
                      {fields.map((field) => (
                        <div key={field}>
                          <dt>{t(`fields.${datasetType}.${field}.label`)}</dt>
                          <dd>{t(`fields.${datasetType}.${field}.description`)}</dd>
                        </div>
                      ))}
                    </dl>
                  </>
                )}
              </Dialog>
            </Modal>
          </ModalOverlay>
        </DialogTrigger>
      </div>
      <p className="case-task">{t(`datasets.${datasetType}.task`)}</p>
      <dl className="case-features">
        {fields
          .filter((field) => !inMatrix.has(field))
          .map((field) => (
            <div key={field} className="case-feature" data-field={field}>
              <dt>{t(`fields.${datasetType}.${field}.label`)}</dt>
              <dd>{value(field)}</dd>
            </div>
          ))}
      </dl>
      {matrix ? (
        <table className="case-matrix">
          <caption className="visually-hidden">{t(`caseCard.matrix.${datasetType}.caption`)}</caption>
          <thead>
            <tr>
              <th scope="col">{t(`caseCard.matrix.${datasetType}.rowHeader`)}</th>
              {matrix.columns.map((column) => (
                <th key={column} scope="col">
                  {t(`caseCard.matrix.${datasetType}.columns.${column}`)}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {matrix.rows.map((row) => (
              <tr key={row.id}>
                <th scope="row">{t(`caseCard.matrix.${datasetType}.rows.${row.id}`)}</th>
                {row.fields.map((field) => (
                  <td key={field} className="case-feature" data-field={field}>
                    {value(field)}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}
