/**
 * A researcher's new dataset, checked in the Worker before anything is built: its definition is
 * validated, its CSV read by exactly the rules set-up uses (dataset-source.ts), and the preview says
 * what was found (columns, missing values, unlabelled values, the outcome's balance, whether the
 * held-out rows can fill the pools) and where its files go to be built. Nothing is stored.
 */
import { badRequest } from '../errors';
import { DatasetDefinitionError, parseDatasetDefinition, sourceColumnOf, type DatasetDefinition, type DatasetPreview } from '../schemas/dataset-definition';
import { datasetDefinitions, studyConfig } from '../schemas/study';
import { DataSourceError, decodeSource, parseSource, readParsedDataset, type PreparedDataset } from '../ml/dataset-source';
import { poolsShortOfTheStudy } from '../schemas/study-counts';
import { deriveUnderstandingSample, quartilesOf, SampleNotDerivable } from '../ml/understanding-sample';
import { heldOutAt, neededPerOutcome, outcomesShort, proposePoolFit } from '../ml/pool-fit';
import { crossValidate } from '../ml/ai-model';
import { baselineCrossValidated } from '../ml/baselines';
import { accuracyShortfalls, type AccuracyShortfall } from '../ml/correctness';
import { builtMainPoolCorrectness } from '../ml/dataset-build';
import { setsAiAccuracy } from '../schemas/condition-plan';

/**
 * What the study's conditions that set the AI's accuracy (`aiAccuracy`) lack in a dataset's main
 * pools (each case's truth and the AI's prediction, worked out only when such a condition exists).
 */
export function designShortfallsOf(mainCases: () => readonly { truth: number; aiPrediction: number }[]): AccuracyShortfall[] {
  const { conditions, mainExperiment } = studyConfig;
  return conditions.some(setsAiAccuracy) ? accuracyShortfalls(conditions, mainExperiment.numCases, mainCases()) : [];
}

const hex = (bytes: ArrayBuffer) => Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, '0')).join('');

function definitionOrRefuse(input: unknown): DatasetDefinition {
  try {
    return parseDatasetDefinition(input, 'the definition');
  } catch (err) {
    if (err instanceof DatasetDefinitionError) throw badRequest('invalid_definition', err.message);
    throw err;
  }
}

const SHA256 = /^[0-9a-f]{64}$/;

/**
 * The definition with the uploaded file's sha256 where it names none yet (left out, or a
 * placeholder such as the docs' "<the file's sha256>"), so a first check can run and report the
 * value to write in; `given` says whether the definition named one of its own.
 */
function withFileSha(definition: unknown, sha256: string): { definition: unknown; given: boolean } {
  const files = (definition as { source?: { files?: unknown } } | null)?.source?.files;
  if (!Array.isArray(files) || files.length !== 1 || typeof files[0] !== 'object' || files[0] === null) return { definition, given: true };
  const named = (files[0] as { sha256?: unknown }).sha256;
  if (typeof named === 'string' && SHA256.test(named)) return { definition, given: true };
  const source = (definition as { source: Record<string, unknown> }).source;
  return { definition: { ...(definition as object), source: { ...source, files: [{ ...(files[0] as object), sha256 }] } }, given: false };
}

/** An uploaded definition and CSV, read by set-up's rules; a 400 that names the column, row and rule otherwise. */
export async function readUpload(input: { definition: unknown; csvBase64: string }) {
  const bytes = Uint8Array.from(atob(input.csvBase64), (ch) => ch.charCodeAt(0));
  const sha256 = hex(await crypto.subtle.digest('SHA-256', bytes));
  const named = withFileSha(input.definition, sha256);
  const definition = definitionOrRefuse(named.definition);
  if (definition.source.files.length !== 1) {
    throw badRequest('one_csv', `The dashboard reads one CSV; this definition names ${definition.source.files.length} files. Build it with npm run ml -- prepare.`);
  }
  // Pools smaller than a phase would strand every participant who gets the dataset.
  const short = poolsShortOfTheStudy(definition.pools, { pre: studyConfig.preExperiment.numCases, main: studyConfig.mainExperiment.numCases });
  if (short.length > 0) throw badRequest('pools_smaller_than_study', short.join('\n'));
  const file = definition.source.files[0]!;
  try {
    const { header, rows } = parseSource(definition, file, decodeSource(definition, file, bytes));
    const read = readParsedDataset(definition, [{ header, rows }]);
    // Without a sample of its own, the task's understanding test takes one derived from the data.
    const sampleGiven = definition.understandingSample !== undefined;
    const complete = sampleGiven ? definition : { ...definition, understandingSample: deriveUnderstandingSample(read) };
    const dataset = { ...read, definition: complete };
    return { definition: complete, file, bytes: bytes.length, sha256, shaGiven: named.given, sampleGiven, header, rows, dataset };
  } catch (err) {
    if (err instanceof DataSourceError) throw badRequest('source_breaks_definition', err.message);
    if (err instanceof SampleNotDerivable) throw badRequest('understanding_sample_needed', err.message);
    throw err;
  }
}

/**
 * The AI model's and the baselines' cross-validated accuracy on the training rows `at` gives (the
 * definition's split or the proposal's), with the definition's folds and parameters: what the
 * build would report as its CV.
 */
function accuracyOf(data: PreparedDataset, at: { split: 'definition' | 'proposal'; train: number[] } | null): DatasetPreview['accuracy'] {
  if (!at) return null;
  const { definition } = data;
  const { train } = at;
  const folds = definition.model.cvFolds;
  const ai = crossValidate(data, train, { folds, ...(definition.model.params ? { params: definition.model.params } : {}) });
  return { split: at.split, training_rows: train.length, cv_folds: folds, ai_model: ai.reduce((a, b) => a + b, 0) / folds, ...baselineCrossValidated(data, train, folds) };
}

export async function previewDataset(input: { definition: unknown; csvBase64: string }): Promise<DatasetPreview> {
  const { definition, file, bytes, sha256, shaGiven, sampleGiven, header, rows, dataset } = await readUpload(input);

  const missingMarkers = new Set(['', ...definition.missing.markers]);
  const features = new Set(definition.columns.map(sourceColumnOf));
  const sourceColumns = header.map((name, i) => {
    const cells = rows.map((r) => (r[i] ?? '').trim()).filter((cell) => !missingMarkers.has(cell));
    const looks = cells.length === 0 ? 'empty' : cells.every((cell) => Number.isFinite(Number(cell.replace(/,/g, '')))) ? 'numeric' : 'text';
    const readAs = name === definition.outcome.column ? 'outcome' : features.has(name) && header.indexOf(name) === i ? 'feature' : definition.ignoredColumns.includes(name) ? 'ignored' : 'not_read';
    return { name, read_as: readAs, looks, filled: cells.length } as const;
  });

  const columns = definition.columns.map((column) => {
    const values = dataset.examples.map((e) => e.features[column.name]);
    const present = values.filter((v) => v !== null);
    const numbers = present.filter((v): v is number => typeof v === 'number');
    const keys = new Set(present.map((v) => (column.kind === 'ordinal' && typeof v === 'number' ? column.levels[v]! : String(v))));
    const labelled = column.values ?? {};
    return {
      name: column.name,
      kind: column.kind,
      missing: values.length - present.length,
      distinct: keys.size,
      min: numbers.length && column.kind === 'numeric' ? numbers.reduce((a, b) => Math.min(a, b)) : null,
      max: numbers.length && column.kind === 'numeric' ? numbers.reduce((a, b) => Math.max(a, b)) : null,
      quartiles: numbers.length && column.kind === 'numeric' ? quartilesOf(numbers) : null,
      // A numeric column's labels are for particular values only; every category needs its words.
      unlabelled: column.kind === 'numeric' ? [] : [...keys].filter((k) => !(k in labelled)).sort().slice(0, 20),
    };
  });

  const positive = dataset.examples.filter((e) => e.label === 1).length;
  const negative = dataset.examples.length - positive;
  const { pools, split } = definition;
  const needed = neededPerOutcome(pools);
  // The held-out split exactly as the build draws it.
  const labels = dataset.examples.map((e) => e.label);
  const own = heldOutAt(definition, labels, split.testSize);
  const heldOut = own.held;
  const canBuild = heldOut.positive >= needed && heldOut.negative >= needed;
  // A definition that named no sha256 of its own does not match: the check reports the one to write in.
  const matches = shaGiven && sha256 === file.sha256;
  // Settings that fit are worked out only when the definition's do not.
  const fit = canBuild ? { options: [], proposal: null } : proposePoolFit(dataset);
  const sample = definition.understandingSample!;
  const accuracy = accuracyOf(
    dataset,
    canBuild ? { split: 'definition', train: own.train } : fit.proposal ? { split: 'proposal', train: heldOutAt(definition, labels, fit.proposal.test_size).train } : null,
  );

  const changes: DatasetPreview['changes'] = [
    ...(matches ? [] : [{ path: ['source', 'files', 0, 'sha256'], from: shaGiven ? file.sha256 : null, to: sha256, reason: 'sha256' as const }]),
    ...(fit.proposal && fit.proposal.main_pools !== pools.mainPools ? [{ path: ['pools', 'mainPools'], from: pools.mainPools, to: fit.proposal.main_pools, reason: 'main_pools' as const }] : []),
    ...(fit.proposal && fit.proposal.test_size !== split.testSize ? [{ path: ['split', 'testSize'], from: split.testSize, to: fit.proposal.test_size, reason: 'test_share' as const }] : []),
    ...(sampleGiven ? [] : [{ path: ['understandingSample'], from: null, to: sample, reason: 'understanding_sample' as const }]),
  ];

  // Built only when the study has a condition setting the AI's accuracy: what its main pools give it.
  const shortfalls = canBuild ? designShortfallsOf(() => builtMainPoolCorrectness(dataset)) : [];

  return {
    dataset: definition.id,
    csv: { bytes, sha256, matches_definition: matches },
    id_in_use: definition.id in datasetDefinitions,
    names_in_use: Object.values(datasetDefinitions).flatMap((other) =>
      other.id === definition.id ? [] : (['ja', 'en'] as const).filter((l) => other.texts[l].name === definition.texts[l].name).map((language) => ({ dataset: other.id, language, name: other.texts[language].name })),
    ),
    source_columns: sourceColumns,
    rows: { read: rows.length, kept: dataset.examples.length },
    columns,
    outcome: { positive, negative, positive_share: dataset.examples.length ? positive / dataset.examples.length : 0 },
    pools: { needed_per_outcome: needed, needed_with_one_main_pool: neededPerOutcome(pools, 1), held_out: heldOut, can_build: canBuild, short: outcomesShort(dataset, heldOut), options: fit.options, proposal: fit.proposal },
    accuracy_shortfalls: shortfalls.map((x) => ({ condition: x.condition, ai_accuracy: x.aiAccuracy, needed_right: x.neededRight, needed_wrong: x.neededWrong, right: x.right, wrong: x.wrong })),
    understanding_sample: { derived: !sampleGiven, sample },
    accuracy,
    changes,
    build: { definition_file: `ml-assets/datasets/${definition.id}.json`, csv_file: file.path, sha256_to_set: matches ? null : sha256 },
  };
}
