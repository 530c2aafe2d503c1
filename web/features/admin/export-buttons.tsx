import { useState } from 'react';
import { Button, Radio, RadioGroup, Label } from 'react-aria-components';
import { useTranslation } from 'react-i18next';
import { api } from '../../lib/api';
import { saveResponse } from './downloads';
import { ExportJobs, useStartAllDataExport } from './export-jobs';

type TableExport = 'pre-experiment' | 'main-experiment' | 'case-data' | 'feature-importance' | 'post-survey' | 'all-data';
type ExportName = TableExport | 'consent-csv' | 'consent-json';

const LABEL_KEYS: Record<ExportName, string> = {
  'pre-experiment': 'preExperiment',
  'main-experiment': 'mainExperiment',
  'case-data': 'caseData',
  'feature-importance': 'featureImportance',
  'post-survey': 'postSurvey',
  'all-data': 'allData',
  'consent-csv': 'consent',
  'consent-json': 'consent',
};

/** CSV, TSV, or CSV for Excel (UTF-8 with a byte-order mark, so Excel shows Japanese text when the file is opened). */
type TextFormat = 'csv' | 'tsv' | 'excel';
const FORMAT_LABELS: Record<TextFormat, string> = { csv: 'CSV', tsv: 'TSV', excel: 'CSV (Excel)' };
const extensionOf = (format: TextFormat) => (format === 'tsv' ? 'tsv' : 'csv');

async function download(name: Exclude<ExportName, 'all-data'>, format: TextFormat, userName: string) {
  if (name === 'consent-csv' || name === 'consent-json') {
    const kind = name === 'consent-json' ? 'json' : format === 'excel' ? 'excel' : 'csv';
    const res = await api.api.admin['consent-records'].export.$get({ query: { format: kind } });
    return saveResponse(res, 'consent-records', kind === 'json' ? 'json' : 'csv');
  }
  const query = { format, ...(userName ? { user_name: userName } : {}) };
  const res = await api.api['enhanced-export'][':name'].$get({ param: { name }, query });
  return saveResponse(res, name, extensionOf(format));
}

/**
 * Export buttons of a tab: CSV or TSV (JSON for consent), optionally for one participant. A table
 * downloads at once; all data is written in steps by a Workflow and listed below with its progress.
 */
export function ExportButtons({ names, notify }: { names: readonly ExportName[]; notify: (b: { kind: 'error' | 'success'; text: string }) => void }) {
  const { t } = useTranslation();
  const [format, setFormat] = useState<TextFormat>('csv');
  const [userName, setUserName] = useState('');
  const [busy, setBusy] = useState<ExportName | null>(null);
  const tableExports = names.some((n) => !n.startsWith('consent'));
  const formats: TextFormat[] = tableExports ? ['csv', 'tsv', 'excel'] : ['csv', 'excel'];
  const startAllData = useStartAllDataExport(notify);
  const run = async (name: ExportName) => {
    if (name === 'all-data') {
      startAllData.mutate({ format, userName: userName.trim() });
      return;
    }
    setBusy(name);
    try {
      await download(name, format, userName.trim());
    } catch (err) {
      const text = t('admin.dashboard.exports.failed', { status: err instanceof Error ? err.message : String(err) });
      notify({ kind: 'error', text });
      window.alert(text);
    } finally {
      setBusy(null);
    }
  };
  return (
    <div className="card export-card">
      <h3 className="card-title">{t('admin.dashboard.exports.title')}</h3>
      <div className="export-options">
        <RadioGroup className="inline-radios" value={format} onChange={(v) => setFormat(v as TextFormat)} orientation="horizontal">
          <Label className="visually-hidden">{t('admin.dashboard.exports.title')}</Label>
          {formats.map((f) => (
            <Radio key={f} value={f}>
              {FORMAT_LABELS[f]}
            </Radio>
          ))}
        </RadioGroup>
        {tableExports ? (
          <label className="export-user">
            {t('admin.dashboard.exports.userFilter')}{' '}
            <input value={userName} onChange={(e) => setUserName(e.target.value)} maxLength={200} />
          </label>
        ) : null}
      </div>
      <div className="button-row">
        {names.map((name) => (
          <Button key={name} className="button" isDisabled={busy !== null || (name === 'all-data' && startAllData.isPending)} onPress={() => void run(name)} data-export={name}>
            {t(`admin.dashboard.exports.${LABEL_KEYS[name]}`)}
            {name === 'consent-json' ? ' (JSON)' : name === 'all-data' ? '' : ` (${format === 'excel' ? 'Excel' : FORMAT_LABELS[format]})`}
          </Button>
        ))}
      </div>
      {names.includes('all-data') ? <ExportJobs notify={notify} /> : null}
    </div>
  );
}
