/**
 * Runs one export: writes it to the EXPORTS bucket (the copy the study keeps) and returns the key
 * and file name the route streams back. `all-data` is a zip of every table, the codebook, the
 * study configuration and the analysis scripts that recompute the dashboard's figures from them,
 * so one file is enough to analyse, to reproduce and to cite the study's set-up.
 */
import type { Db } from '../../db/client';
import { recordedStudyConfigs } from '../../db/queries/admin';
import { currentStudyConfig } from '../study-configuration';
import { exportCopies } from '../../db/schema';
import { r2Keys } from '../../storage/r2';
import {
  alphaModelsTable,
  conditionDifferencesTable,
  relianceByAlphaTable,
  relianceByConditionTable,
  relianceByDatasetTable,
  relianceParticipantsTable,
  trialsTable,
} from '../analytics/exports';
import type { ExportFilter, ExportTable } from './columns';
import {
  aiModelsTable,
  caseDataTable,
  consentTable,
  featureImportanceTable,
  mainExperimentTable,
  participantsTable,
  postSurveyTable,
  preExperimentTable,
  servedExplanationsTable,
  understandingTestTable,
  userModelsTable,
  withdrawalsTable,
} from './tables';
import modelsR from './analysis/models.R';
import reproducePy from './analysis/reproduce.py';
import { createExportJob, runExportStep, type ExportJob, type ZipPart } from './stepwise';
import { R2ExportSink, TEXT_EXTENSIONS, writeTextExport, type TextFormat } from './writer';

export const CONTENT_TYPES = {
  csv: 'text/csv; charset=utf-8',
  tsv: 'text/tab-separated-values; charset=utf-8',
  excel: 'text/csv; charset=utf-8',
  json: 'application/json; charset=utf-8',
  zip: 'application/zip',
} as const;

/** The single-table exports by their URL name (part 2 §7), and the tables of the all-data zip. */
export const EXPORT_TABLES = {
  'pre-experiment': preExperimentTable,
  'main-experiment': mainExperimentTable,
  'case-data': caseDataTable,
  'feature-importance': featureImportanceTable,
  'post-survey': postSurveyTable,
  'reliance-participants': relianceParticipantsTable,
  'reliance-by-alpha': relianceByAlphaTable,
  'reliance-by-condition': relianceByConditionTable,
  'reliance-by-dataset': relianceByDatasetTable,
  'reliance-condition-differences': conditionDifferencesTable,
  'reliance-alpha-models': alphaModelsTable,
  trials: trialsTable,
} as const;
export type ExportName = keyof typeof EXPORT_TABLES;

export const ALL_DATA_TABLES = [
  participantsTable,
  consentTable,
  preExperimentTable,
  mainExperimentTable,
  trialsTable,
  featureImportanceTable,
  caseDataTable,
  understandingTestTable,
  servedExplanationsTable,
  userModelsTable,
  postSurveyTable,
  aiModelsTable,
  withdrawalsTable,
  relianceParticipantsTable,
  relianceByAlphaTable,
  relianceByConditionTable,
  relianceByDatasetTable,
  conditionDifferencesTable,
  alphaModelsTable,
] as ExportTable<unknown>[];

/** The codebook as a table itself: one row per column of every exported table. */
type CodebookRow = { table: string; description: string; column: string; type: string; meaning: string; coding?: string; units?: string };
export const codebookTable: ExportTable<CodebookRow> = {
  name: 'codebook',
  description: 'Every column of every exported table: meaning, type, coding and units.',
  columns: (['table', 'column', 'type', 'meaning', 'coding', 'units', 'description'] as const).map((name) => ({
    name,
    type: 'text' as const,
    meaning: name,
    value: (r: CodebookRow) => r[name] ?? null,
  })),
  async *pages() {
    yield ALL_DATA_TABLES.flatMap((t) =>
      t.columns.map((c) => ({ table: t.name, description: t.description, column: c.name, type: c.type, meaning: c.meaning, coding: c.coding, units: c.units })),
    );
  },
};

const stamp = (now: Date) => now.toISOString().slice(0, 19).replace(/[-:]/g, '').replace('T', '-');
const fileNameOf = (base: string, ext: string, now: Date, filter: ExportFilter) =>
  `${base}_${stamp(now)}${filter.userName ? `_${filter.userName.replace(/[^A-Za-z0-9_-]/g, '')}` : ''}.${ext}`;
/** A text export's base name: the Excel variant says so, its files being CSV too. */
const textBase = (base: string, format: TextFormat) => (format === 'excel' ? `${base}-excel` : base);

export type ExportResult = { key: string; fileName: string; contentType: string; bytes: number };

/**
 * Writes one copy and records which participants' rows it holds (export_copies), so that a
 * withdrawal deletes exactly those copies. `write` adds to `holds` every participant ID it writes.
 */
async function store(
  db: Db,
  bucket: R2Bucket,
  fileName: string,
  contentType: string,
  now: Date,
  write: (sink: R2ExportSink, holds: Set<string>) => Promise<number>,
): Promise<ExportResult> {
  // A random suffix keeps two exports in the same second apart; every copy is kept.
  const key = r2Keys.export(now.toISOString(), `${crypto.randomUUID().slice(0, 8)}_${fileName}`);
  const holds = new Set<string>();
  const bytes = await write(new R2ExportSink(bucket, key, contentType), holds);
  await db.insert(exportCopies).values({ objectKey: key, participantCodes: [...holds].sort(), createdAt: now.toISOString() });
  return { key, fileName, contentType, bytes };
}

export function exportTable(db: Db, bucket: R2Bucket, name: ExportName, format: TextFormat, filter: ExportFilter, now: Date) {
  const table = EXPORT_TABLES[name] as ExportTable<unknown>;
  return store(db, bucket, fileNameOf(textBase(name, format), TEXT_EXTENSIONS[format], now, filter), CONTENT_TYPES[format], now, (sink, holds) =>
    writeTextExport(sink, db, table, filter, format, holds),
  );
}

/** The all-data zip's files: every table, the codebook, the study's configurations and the analysis scripts. */
export function allDataParts(db: Db, format: TextFormat, filter: ExportFilter, now: Date): ZipPart[] {
  const ext = TEXT_EXTENSIONS[format];
  return [
    ...ALL_DATA_TABLES.map((table) => ({ name: `${table.name}.${ext}`, table, filter, holds: true })),
    { name: `codebook.${ext}`, table: codebookTable as ExportTable<unknown>, filter: {}, holds: false },
    { name: 'study-config.json', text: async function* () {
      const current = await currentStudyConfig();
      yield JSON.stringify({ exported_at: now.toISOString(), filter, version: current.version, study: current.config }, null, 2);
    } },
    { name: 'study-configurations.json', text: async function* () {
      yield JSON.stringify(await recordedStudyConfigs(db), null, 2);
    } },
    // Recomputes every dashboard figure from the CSVs above (docs/dashboard-and-exports.md, "Reproducing the figures").
    { name: 'analysis/reproduce.py', text: async function* () {
      yield reproducePy;
    } },
    { name: 'analysis/models.R', text: async function* () {
      yield modelsR;
    } },
  ];
}

/** Files the all-data zip of a job, as of the time it was asked for. */
export const jobParts = (db: Db, job: ExportJob) => allDataParts(db, job.format, job.filter, new Date(job.createdAt));

/** Records an all-data export (or backup) to be written in steps; its steps then run by the Workflow or inline. */
export function startAllDataExport(db: Db, kind: ExportJob['kind'], format: TextFormat, filter: ExportFilter, now: Date) {
  const id = crypto.randomUUID();
  const fileName = fileNameOf(textBase('all-data', format), 'zip', now, filter);
  const objectKey = r2Keys.export(now.toISOString(), `${id.slice(0, 8)}_${fileName}`);
  return createExportJob(db, { id, kind, format, filter, objectKey, fileName }, now);
}

/** The all-data export within one request: its steps one after another (the dashboard runs them as a Workflow instead). */
export async function exportAllData(db: Db, bucket: R2Bucket, format: TextFormat, filter: ExportFilter, now: Date): Promise<ExportResult> {
  let job = await startAllDataExport(db, 'all_data', format, filter, now);
  const parts = jobParts(db, job);
  const runner = `request:${job.id}`;
  while (job.status === 'running') job = await runExportStep(db, bucket, job.id, parts, runner);
  return { key: job.objectKey, fileName: job.fileName, contentType: CONTENT_TYPES.zip, bytes: job.bytes };
}

/** Consent records as CSV (one column per item) or as JSON records like the dashboard's list. */
export function exportConsent(db: Db, bucket: R2Bucket, format: 'csv' | 'excel' | 'json', now: Date) {
  if (format !== 'json') {
    const fileName = fileNameOf(textBase('consent-records', format), 'csv', now, {});
    return store(db, bucket, fileName, CONTENT_TYPES[format], now, (sink, holds) => writeTextExport(sink, db, consentTable, {}, format, holds));
  }
  const fileName = fileNameOf('consent-records', format, now, {});
  return store(db, bucket, fileName, CONTENT_TYPES.json, now, async (sink, holds) => {
    const encoder = new TextEncoder();
    let first = true;
    sink.write(encoder.encode('['));
    for await (const rows of consentTable.pages(db, {})) {
      const records = rows.map(({ r, username }) => ({
        id: r.id,
        user: username,
        user_id: r.participantId,
        session_id: r.sessionId,
        study_version: r.studyVersion,
        consent_items: r.consentItems,
        consented_at: r.consentedAt,
        ip_address: r.ipAddress,
      }));
      for (const record of records) {
        holds.add(record.user);
        sink.write(encoder.encode(`${first ? '' : ','}\n${JSON.stringify(record)}`));
        first = false;
      }
      await sink.flush();
    }
    sink.write(encoder.encode('\n]\n'));
    return sink.close();
  });
}
