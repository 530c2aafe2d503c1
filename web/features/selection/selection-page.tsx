import { useState } from 'react';
import { Button, Radio, RadioGroup, Label } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { datasetOf } from '../../../worker/schemas/datasets';
import { DATASET_TYPES, enabledDatasets, type DatasetType } from '../../../worker/schemas/study-config';
import { datasetFromCaseId } from '../../lib/dataset-type';
import { storedParticipant } from '../../lib/participant';
import { storageKeys, writeStorage } from '../../lib/storage-keys';

/** `/experiment/selection`: choose a dataset; the choice goes to the introduction. */
export function SelectionPage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const stored = storedParticipant();
  // The initial choice follows the session ID when it names a dataset.
  const inferred = stored ? (DATASET_TYPES.find((d) => stored.sessionId.includes(d)) ?? datasetFromCaseId(stored.sessionId)) : null;
  const [chosen, setChosen] = useState<DatasetType | null>(inferred ?? null);
  const datasets = enabledDatasets();

  return (
    <div className="page selection-page">
      <h1>{t('selection.title')}</h1>
      <p>{t('selection.lead')}</p>
      <RadioGroup value={chosen} onChange={(v) => setChosen(v as DatasetType)} className="dataset-cards" aria-label={t('selection.title')}>
        <Label className="visually-hidden">{t('selection.title')}</Label>
        {datasets.map((d) => (
          <Radio key={d} value={d} className="dataset-card" aria-label={t('selection.choose', { name: t(`datasets.${d}.name`) })}>
            <h2>{t(`datasets.${d}.name`)}</h2>
            <p>{t(`datasets.${d}.summary`)}</p>
            <p className="muted">{t('datasets.features', { count: datasetOf(d).columns.length })}</p>
          </Radio>
        ))}
      </RadioGroup>

      <h2>{t('selection.compare')}</h2>
      <table className="table table-stack">
        <thead>
          <tr>
            <th scope="col">{t('selection.columns.dataset')}</th>
            <th scope="col">{t('selection.columns.features')}</th>
            <th scope="col">{t('selection.columns.task')}</th>
            <th scope="col">{t('selection.columns.labels')}</th>
          </tr>
        </thead>
        <tbody>
          {datasets.map((d) => (
            <tr key={d}>
              <th scope="row">{t(`datasets.${d}.name`)}</th>
              <td data-label={t('selection.columns.features')}>{datasetOf(d).columns.length}</td>
              <td data-label={t('selection.columns.task')}>{t(`datasets.${d}.task`)}</td>
              <td data-label={t('selection.columns.labels')}>
                {t(`datasets.${d}.positive`)} / {t(`datasets.${d}.negative`)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="muted">{t('datasets.balanced')}</p>

      <div className="button-row sticky-actions">
        <Button
          className="button button-primary"
          isDisabled={!chosen}
          onPress={() => {
            if (!chosen) return;
            writeStorage(storageKeys.datasetType, chosen);
            void navigate('/introduction', { state: { datasetType: chosen } });
          }}
        >
          {t('selection.start')}
        </Button>
        <Button className="button" onPress={() => void navigate('/')}>
          {t('selection.back')}
        </Button>
      </div>
    </div>
  );
}
