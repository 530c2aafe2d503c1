/**
 * A decision task as data: one definition file and one CSV make a dataset of the platform. The
 * definition says where the source is (and its sha256), how each column is read and shown, which
 * columns are never read, what the outcome is, how the case pools are drawn and how the AI model
 * is trained. Set-up (`npm run ml -- prepare`) validates it before reading a byte of the source;
 * an error names the column and the rule it breaks.
 */
import { z } from 'zod';
import { trainParamsSchema } from './train-params';

/** Dataset ids appear in case ids, R2 keys and export file names: lower-case snake case. */
export const datasetIdSchema = z
  .string()
  .regex(/^[a-z][a-z0-9_]{1,39}$/, 'a dataset id is 2–40 lower-case letters, digits or underscores, starting with a letter');

/** Feature names become export columns and i18n keys: snake case, not a reserved word of the case record. */
const RESERVED = ['case_id', 'case_number', 'ground_truth', 'dataset_type', 'features'];
const featureNameSchema = z
  .string()
  .regex(/^[a-z][a-z0-9_]{0,47}$/, 'a column name is lower-case snake case (letters, digits, underscores), starting with a letter')
  .refine((name) => !RESERVED.includes(name), { message: `a column may not be named ${RESERVED.join(', ')}` });

const bilingual = z.object({ ja: z.string().min(1), en: z.string().min(1) });

/**
 * How a number is shown on the case card; the value is the cell as read. `age`: a person's age
 * (32 years / 32歳); `years`: a duration (27 years / 27年); `percentile`: the value (in `currency`
 * when it has one, else as `plain`) with its place among the dataset's own values ("top 24%").
 */
export const NUMBER_FORMATS = ['plain', 'currency', 'age', 'years', 'hours', 'points', 'out_of_10', 'percentile'] as const;

const columnBase = {
  /** The feature's name in the platform (models, exports, texts). */
  name: featureNameSchema,
  /** Its header in the source file, when it differs from `name` (the first column of that header is read). */
  source: z.string().min(1).optional(),
  /** What the column means, in English, for the export codebook. */
  meaning: z.string().min(1),
  label: bilingual,
  description: bilingual,
};

const numericColumn = z.object({
  ...columnBase,
  kind: z.literal('numeric'),
  /** Every value is a whole number (the codebook's type). */
  integer: z.boolean().default(false),
  /**
   * What the number counts. A text (`"offences"`) is the codebook's unit only; `{ "ja": …, "en": … }`
   * is also written after the value on the case card in each language (the codebook takes the
   * English), with `plain` values and `percentile` values without a currency: the other formats
   * carry their own units.
   */
  unit: z.union([z.string().min(1), bilingual]).optional(),
  format: z.enum(NUMBER_FORMATS).default('plain'),
  /** Digits after the decimal point on the case card (`plain`, `points` and `percentile` values, every value the same); up to 3, trailing zeros dropped, without it. */
  decimals: z.number().int().min(0).max(6).optional(),
  /** Currency code for `format: currency` (required) or `percentile` (an amount of money). */
  currency: z.string().length(3).optional(),
  /** Words for particular values (e.g. 0 = female, 1 = male), shown instead of the number. */
  values: z.record(z.string(), bilingual).optional(),
  /**
   * Where the column's values lie (the sorted values at ⌊n·q⌋ of the rows set-up keeps; mean and
   * count optional): `format: percentile` places a case's value among them. The dashboard's check
   * reports them for every numeric column.
   */
  statistics: z.object({ min: z.number(), q1: z.number(), median: z.number(), q3: z.number(), max: z.number(), mean: z.number().optional(), count: z.number().int().positive().optional() }).optional(),
});

const categoricalColumn = z.object({
  ...columnBase,
  kind: z.literal('categorical'),
  /**
   * A category the source records as integer codes from `min` to `max`: the codes are the model's
   * categories as they are. Without it the values are text, coded in byte order over the whole file.
   */
  codes: z.object({ min: z.number().int(), max: z.number().int() }).optional(),
  /** Each value as participants read it. */
  values: z.record(z.string(), bilingual),
});

const ordinalColumn = z.object({
  ...columnBase,
  kind: z.literal('ordinal'),
  /** The levels, lowest first: the model reads a level as its position (0, 1, …). */
  levels: z.array(z.string().min(1)).min(2),
  values: z.record(z.string(), bilingual),
});

export const datasetColumnSchema = z.discriminatedUnion('kind', [numericColumn, categoricalColumn, ordinalColumn]);
export type DatasetColumn = z.infer<typeof datasetColumnSchema>;

const sourceFileSchema = z.object({
  /** Path of the CSV, relative to the data folder (XDL_DATA_DIR) unless absolute. */
  path: z.string().min(1),
  sha256: z.string().regex(/^[0-9a-f]{64}$/, 'sha256 is 64 lower-case hex digits'),
  /** Lines before the first record (a title line, say), skipped. */
  skipLines: z.number().int().nonnegative().default(0),
});

/** A field group shown as one table on the case card: rows of attributes, one column per field kind. */
const matrixSchema = z.object({
  columns: z.array(z.object({ id: featureNameSchema, label: bilingual })).min(2),
  rows: z.array(z.object({ id: featureNameSchema, label: bilingual, fields: z.array(featureNameSchema).min(2) })).min(1),
  caption: bilingual,
  rowHeader: bilingual,
});

/** The task as participants read it: its name, a one-line summary, the question, and the answer labels. */
const datasetTextsSchema = z.object({
  name: z.string().min(1),
  summary: z.string().min(1),
  task: z.string().min(1),
  /** The participant's two answers. */
  positive: z.string().min(1),
  negative: z.string().min(1),
  /** The AI's prediction, as the main experiment names it (part 2 §3). */
  aiPositive: z.string().min(1),
  aiNegative: z.string().min(1),
});

const sampleFeatureSchema = z.object({ feature: featureNameSchema, value: z.union([z.string(), z.number()]), ai: z.number().min(-1).max(1), user: z.number().min(-1).max(1) });

/**
 * The understanding test's sample chart for this task (worker/schemas/understanding-test.ts): four
 * of its features with a value each and the AI's and a participant model's signed shares. Role a
 * pushes most toward the positive answer, b toward the negative, c a little toward the positive,
 * d has no influence; `otherAi`/`otherUser` are the shares of the features not shown.
 */
const understandingSampleSchema = z.object({
  prediction: z.union([z.literal(0), z.literal(1)]),
  features: z.object({ a: sampleFeatureSchema, b: sampleFeatureSchema, c: sampleFeatureSchema, d: sampleFeatureSchema }),
  otherAi: z.number().min(0).max(1),
  otherUser: z.number().min(0).max(1),
});

const colourSchema = z.string().regex(/^#[0-9a-fA-F]{6}$/, 'a colour is #rrggbb');

export const datasetDefinitionSchema = z
  .object({
    id: datasetIdSchema,
    /** Where the dataset comes in lists (the selection screen, the dashboard): lower first, then by id. */
    order: z.number().int().default(100),
    source: z.object({
      files: z.array(sourceFileSchema).min(1),
      encoding: z.enum(['utf-8', 'macintosh', 'windows-1252', 'shift_jis']).default('utf-8'),
      delimiter: z.string().length(1).default(','),
      /** The column names, for a file without a header line; otherwise its first line names them. */
      header: z.array(z.string().min(1)).min(2).optional(),
      /** Stop with an error unless exactly this many rows are kept (guards a changed file or rule). */
      expectedRows: z.number().int().positive().optional(),
    }),
    columns: z.array(datasetColumnSchema).min(1),
    /**
     * Columns of the source that are never read (names, identifiers, dates): listed so a reviewer
     * sees they were considered; the parser reads only `columns` and the outcome, whatever is here.
     */
    ignoredColumns: z.array(z.string().min(1)).default([]),
    missing: z
      .object({
        /** Cell texts that mean "missing" (after trimming). The empty cell always does. */
        markers: z.array(z.string()).default([]),
        /** `drop`: a row with any missing feature is left out; `keep`: missing values go to the model as missing. */
        rows: z.enum(['keep', 'drop']).default('keep'),
      })
      .default({ markers: [], rows: 'keep' }),
    outcome: z.object({
      column: z.string().min(1),
      /** Cell texts (trimmed) of the positive outcome, and of the negative one: any other text stops set-up. */
      positive: z.array(z.string()).min(1),
      negative: z.array(z.string()).min(1),
    }),
    texts: z.object({ ja: datasetTextsSchema, en: datasetTextsSchema }),
    colours: z.object({ positive: colourSchema, negative: colourSchema }),
    /**
     * The understanding test's sample chart. Optional: left out, it is derived from the data (the
     * columns that go most and least with the outcome; worker/ml/understanding-sample.ts) by the
     * dashboard's check and add and by set-up, and the check shows what it derived.
     */
    understandingSample: understandingSampleSchema.optional(),
    /** Fields the case card shows as one table (as speed dating's partner values and ratings). */
    matrix: matrixSchema.optional(),
    pools: z.object({
      tutorial: z.number().int().min(1).default(2),
      pre: z.number().int().min(2).default(200),
      main: z.number().int().min(2).default(50),
      mainPools: z.number().int().min(1).max(26).default(4),
      seed: z.number().int().nonnegative(),
      /** Case ids of the tutorial cases (the spec names the shipped ones); `tutorial_{id}_{n}` otherwise. */
      tutorialIds: z.array(z.string().min(1)).optional(),
    }),
    split: z.object({ testSize: z.number().gt(0).lt(1).default(0.2), seed: z.number().int().nonnegative().default(42) }).default({ testSize: 0.2, seed: 42 }),
    model: z
      .object({
        /** The trainer's parameters (worker/schemas/train-params.ts), kept as written: those left out take the trainer's defaults. */
        params: z.record(z.string(), z.number()).optional(),
        cvFolds: z.number().int().min(2).max(20).default(5),
      })
      .default({ cvFolds: 5 }),
  })
  .superRefine((d, ctx) => {
    const issue = (path: (string | number)[], message: string) => ctx.addIssue({ code: 'custom', path, message });
    const seen = new Set<string>();
    d.columns.forEach((c, i) => {
      if (seen.has(c.name)) issue(['columns', i, 'name'], `column ${c.name}: named twice`);
      seen.add(c.name);
      const source = c.source ?? c.name;
      if (source === d.outcome.column) issue(['columns', i], `column ${c.name}: reads the outcome column ${source} as a feature`);
      if (d.ignoredColumns.includes(source)) issue(['columns', i], `column ${c.name}: ${source} is listed in ignoredColumns`);
      if (c.kind === 'categorical' && c.codes) {
        if (c.codes.min > c.codes.max) issue(['columns', i, 'codes'], `column ${c.name}: codes.min is above codes.max`);
        for (const key of Object.keys(c.values)) {
          const n = Number(key);
          if (!Number.isInteger(n) || n < c.codes.min || n > c.codes.max) issue(['columns', i, 'values', key], `column ${c.name}: value label ${key} is not a code from ${c.codes.min} to ${c.codes.max}`);
        }
      }
      if (c.kind === 'ordinal') {
        for (const level of c.levels) if (!(level in c.values)) issue(['columns', i, 'values'], `column ${c.name}: level ${level} has no label`);
      }
      if (c.kind === 'numeric' && c.format === 'currency' && !c.currency) issue(['columns', i, 'currency'], `column ${c.name}: format currency needs a currency code`);
      if (c.kind === 'numeric' && c.format === 'percentile') {
        const s = c.statistics;
        if (!s) issue(['columns', i, 'statistics'], `column ${c.name}: format percentile needs statistics (min, q1, median, q3, max of its values; the dashboard's check reports them)`);
        else if (!(s.min <= s.q1 && s.q1 <= s.median && s.median <= s.q3 && s.q3 <= s.max && s.min < s.max)) issue(['columns', i, 'statistics'], `column ${c.name}: statistics must rise from min through q1, median and q3 to max`);
      }
    });
    if (d.model.params) {
      const params = trainParamsSchema.strict().safeParse(d.model.params);
      if (!params.success) for (const i of params.error.issues) issue(['model', 'params', ...i.path.map(String)], `model.params: ${i.message}`);
    }
    const sample = d.understandingSample;
    if (sample) {
      for (const [role, f] of Object.entries(sample.features)) {
        if (!seen.has(f.feature)) issue(['understandingSample', 'features', role, 'feature'], `understandingSample role ${role}: no column ${f.feature}`);
      }
      const { a, b, c, d: none } = sample.features;
      if (!(a.ai > c.ai && c.ai > 0 && b.ai < 0 && Math.abs(none.ai) < 0.01 && a.user > 0 && b.user < 0 && c.user > 0 && Math.abs(none.user) < 0.01)) {
        issue(['understandingSample'], 'understandingSample: role a pushes most toward the positive answer, b toward the negative, c a little toward the positive, d not at all (|share| < 0.01)');
      }
      for (const set of ['ai', 'user'] as const) {
        const total = Object.values(sample.features).reduce((sum, f) => sum + Math.abs(f[set]), 0) + (set === 'ai' ? sample.otherAi : sample.otherUser);
        if (Math.abs(total - 1) > 1e-6) issue(['understandingSample'], `understandingSample: the ${set} shares and other${set === 'ai' ? 'Ai' : 'User'} add up to ${total.toFixed(3)}, not 1`);
      }
    }
    const overlap = d.outcome.positive.filter((v) => d.outcome.negative.includes(v));
    if (overlap.length > 0) issue(['outcome'], `outcome ${d.outcome.column}: ${overlap.join(', ')} is both positive and negative`);
    if (d.pools.pre % 2 !== 0 || d.pools.main % 2 !== 0 || d.pools.tutorial % 2 !== 0) {
      issue(['pools'], 'pool sizes must be even: every pool is drawn 50:50 between the outcomes');
    }
    if (d.pools.tutorialIds && d.pools.tutorialIds.length !== d.pools.tutorial) issue(['pools', 'tutorialIds'], `pools.tutorialIds: ${d.pools.tutorialIds.length} ids for ${d.pools.tutorial} tutorial cases`);
    if (d.matrix) {
      d.matrix.rows.forEach((row, r) => {
        if (row.fields.length !== d.matrix!.columns.length) issue(['matrix', 'rows', r], `matrix row ${row.id}: ${row.fields.length} fields for ${d.matrix!.columns.length} columns`);
        row.fields.forEach((field) => {
          if (!seen.has(field)) issue(['matrix', 'rows', r], `matrix row ${row.id}: no column ${field}`);
        });
      });
    }
  });

export type DatasetDefinition = z.infer<typeof datasetDefinitionSchema>;
export type DatasetDefinitionInput = z.input<typeof datasetDefinitionSchema>;

export class DatasetDefinitionError extends Error {
  override readonly name = 'DatasetDefinitionError';
}

/** Where in a definition an issue is, as a reader finds it: `columns[3] (income).format`. */
function issuePath(input: unknown, path: readonly PropertyKey[]): string {
  let out = '';
  let node: unknown = input;
  for (const key of path) {
    out += typeof key === 'number' ? `[${key}]` : `${out ? '.' : ''}${String(key)}`;
    node = node && typeof node === 'object' ? (node as Record<PropertyKey, unknown>)[key] : undefined;
    const name = node && typeof node === 'object' && 'name' in node ? (node as { name: unknown }).name : undefined;
    if (typeof key === 'number' && typeof name === 'string') out += ` (${name})`;
  }
  return out || '(the definition)';
}

/** Validates a definition, throwing one error that lists every problem with where it is. */
export function parseDatasetDefinition(input: unknown, origin = 'dataset definition'): DatasetDefinition {
  const parsed = datasetDefinitionSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  const lines = parsed.error.issues.map((i) => `  ${issuePath(input, i.path)}: ${i.message}`);
  throw new DatasetDefinitionError(`${origin} is not valid:\n${lines.join('\n')}`);
}

/** The source column a feature is read from. */
export const sourceColumnOf = (column: DatasetColumn) => column.source ?? column.name;

/** Whether the model treats the column as a category (ordinal levels are numbers to it). */
export const isCategorical = (column: DatasetColumn) => column.kind === 'categorical';

/** At most this much CSV (decoded) is checked or added in the Worker; a larger file is built by `npm run ml -- prepare`. */
export const MAX_PREVIEW_CSV_BYTES = 6 * 1024 * 1024;

/** `POST /api/admin/datasets/preview`: a definition (as written, checked in the Worker) and its CSV's bytes in base64. */
export const datasetPreviewBodySchema = z.object({
  definition: z.record(z.string(), z.unknown(), { message: 'definition must be the JSON object of a dataset definition' }),
  csv_base64: z
    .string()
    .min(1, 'csv_base64 is required: the CSV file in base64')
    .max(Math.ceil(MAX_PREVIEW_CSV_BYTES / 3) * 4, `the CSV may be at most ${MAX_PREVIEW_CSV_BYTES / 1024 / 1024} MB; build a larger file with npm run ml -- prepare`)
    .regex(/^[A-Za-z0-9+/]+={0,2}$/, 'csv_base64 is not base64')
    .refine((s) => s.replace(/=+$/, '').length % 4 !== 1, 'csv_base64 is not base64 (its length is off by one character)'),
});

const countSchema = z.number().int().nonnegative();

/** What the preview found: the file, its columns, the outcome's balance, the pools it can fill, and what to run next. */
const poolOptionSchema = z.object({
  main_pools: countSchema,
  test_size: z.number(),
  needed_per_outcome: countSchema,
  held_out: z.object({ positive: countSchema, negative: countSchema }),
  training_rows: countSchema,
});

export const datasetPreviewSchema = z.object({
  dataset: z.string(),
  csv: z.object({ bytes: countSchema, sha256: z.string(), matches_definition: z.boolean() }),
  /** The id is already a dataset's (built in or added): the dashboard cannot add this definition as it is. */
  id_in_use: z.boolean(),
  /** Other datasets with the same name in a language: participants and researchers could not tell them apart (a warning, not a refusal). */
  names_in_use: z.array(z.object({ dataset: z.string(), language: z.enum(['ja', 'en']), name: z.string() })),
  /** Every column of the file: what the definition makes of it and what its cells look like. */
  source_columns: z.array(
    z.object({
      name: z.string(),
      read_as: z.enum(['feature', 'outcome', 'ignored', 'not_read']),
      looks: z.enum(['numeric', 'text', 'empty']),
      filled: countSchema,
    }),
  ),
  rows: z.object({ read: countSchema, kept: countSchema }),
  columns: z.array(
    z.object({
      name: z.string(),
      kind: z.enum(['numeric', 'categorical', 'ordinal']),
      missing: countSchema,
      distinct: countSchema,
      min: z.number().nullable(),
      max: z.number().nullable(),
      /** A numeric column's quartiles as `statistics` takes them (the sorted values at ⌊n·q⌋); null for categories. */
      quartiles: z.object({ q1: z.number(), median: z.number(), q3: z.number() }).nullable(),
      /** Values found in the file without a label in the definition (participants would read the raw value). */
      unlabelled: z.array(z.string()),
    }),
  ),
  outcome: z.object({ positive: countSchema, negative: countSchema, positive_share: z.number() }),
  pools: z.object({
    needed_per_outcome: countSchema,
    held_out: z.object({ positive: countSchema, negative: countSchema }),
    can_build: z.boolean(),
    /** What the pools would take of each outcome with a single main pool (the least any setting needs). */
    needed_with_one_main_pool: countSchema,
    /** Each outcome the held-out split holds too few of, named by its first cell text. */
    short: z.array(z.object({ outcome: z.enum(['positive', 'negative']), value: z.string(), held_out: countSchema, needed: countSchema })),
    /** When the pools cannot be built: for 1 … the definition's main pools, the smallest test share that fills them and what it leaves to train on. */
    options: z.array(poolOptionSchema),
    /** The option proposed (the fewest main pools leaving enough to train on); null when none does. */
    proposal: poolOptionSchema.nullable(),
  }),
  /**
   * Whether the AI is worth studying on this task: on the training rows of the split the dataset
   * would be built with (the proposal's when the definition's does not fit), the cross-validated
   * accuracy of the AI model and of two baselines on the same folds: always answering the majority
   * outcome, and a regularised logistic regression (worker/ml/baselines.ts). Null when no split fits.
   */
  accuracy: z
    .object({
      split: z.enum(['definition', 'proposal']),
      training_rows: countSchema,
      cv_folds: countSchema,
      ai_model: z.number(),
      majority: z.number(),
      logistic_regression: z.number(),
    })
    .nullable(),
  /**
   * Each condition of the study that sets the AI's accuracy on the main set (`aiAccuracy`) and the
   * main pools built from this definition cannot give: what it needs and what the AI gets right
   * and wrong there. Checked only when the pools can be built and a condition sets one; a dataset
   * with any is not added.
   */
  accuracy_shortfalls: z.array(
    z.object({ condition: z.string(), ai_accuracy: z.number(), needed_right: countSchema, needed_wrong: countSchema, right: countSchema, wrong: countSchema }),
  ),
  /** The understanding test's sample chart: the definition's own, or derived from the data (and then proposed as a change). */
  understanding_sample: z.object({ derived: z.boolean(), sample: understandingSampleSchema }),
  /**
   * Edits of the definition the check proposes, which the dashboard applies with one click: the
   * file's sha256 when the definition names none (or another), the main pools and test share that
   * fill the pools, and the derived understanding sample. `path` is the key path in the definition.
   */
  changes: z.array(z.object({ path: z.array(z.union([z.string(), z.number()])), from: z.unknown(), to: z.unknown(), reason: z.enum(['sha256', 'main_pools', 'test_share', 'understanding_sample']) })),
  /**
   * What building it takes (the dashboard phrases the steps): where the definition and the CSV go,
   * and the sha256 to write into the definition when the file is not the one it names. Then
   * `npm run ml -- prepare` builds the pools and the model, and `npm start` or `npm run deploy` seeds them.
   */
  build: z.object({ definition_file: z.string(), csv_file: z.string(), sha256_to_set: z.string().nullable() }),
});
export type DatasetPreview = z.infer<typeof datasetPreviewSchema>;

/** An added dataset offered to new sessions, or no longer. */
export const datasetEnabledBodySchema = z.object({ enabled: z.boolean({ message: 'enabled must be true or false' }) });
export const datasetParamSchema = z.object({ dataset: datasetIdSchema });

/** A column as participants' screens read it: its words, format and values, without its codebook meaning or source. */
export type ShownColumn = DatasetColumn extends infer C ? (C extends unknown ? Omit<C, 'meaning' | 'source' | 'integer'> : never) : never;

/** What participants' screens need of a definition (validated by set-up, every default filled in). */
export type DefinedDataset = Pick<DatasetDefinition, 'id' | 'order' | 'texts' | 'colours' | 'matrix'> & {
  columns: ShownColumn[];
  understandingSample: NonNullable<DatasetDefinition['understandingSample']>;
};

/** A definition's understanding sample: given, or derived from the data before the definition reached here. */
function sampleOf(d: DatasetDefinition): DefinedDataset['understandingSample'] {
  if (!d.understandingSample) throw new DatasetDefinitionError(`${d.id}: the understanding sample was neither given nor derived from the data`);
  return d.understandingSample;
}

/** What a participant's page needs of a definition: what a screen shows, without sources, codebook meanings and set-up rules. */
export const shownDefinition = (d: DatasetDefinition): DefinedDataset => ({
  id: d.id,
  order: d.order,
  texts: d.texts,
  colours: d.colours,
  ...(d.matrix ? { matrix: d.matrix } : {}),
  understandingSample: sampleOf(d),
  columns: d.columns.map(({ meaning: _meaning, source: _source, ...shown }) => {
    if (shown.kind !== 'numeric') return shown;
    const { integer: _integer, ...numeric } = shown;
    return numeric;
  }),
});

/** A dataset as the first page's index lists it (datasets.index.json): its id, place and name in each language. */
export type IndexedDataset = Pick<DatasetDefinition, 'id' | 'order'> & { texts: { [L in keyof DatasetDefinition['texts']]: Pick<DatasetDefinition['texts'][L], 'name'> } };
export const indexEntry = ({ id, order, texts }: IndexedDataset): IndexedDataset => ({ id, order, texts: { ja: { name: texts.ja.name }, en: { name: texts.en.name } } });

/**
 * A definition with the check's proposed changes applied (the dashboard's one click): each change
 * sets its path's value, creating the objects on the way. The input is not changed.
 */
export function applyDefinitionChanges(definition: Record<string, unknown>, changes: readonly Pick<DatasetPreview['changes'][number], 'path' | 'to'>[]): Record<string, unknown> {
  const result = structuredClone(definition);
  for (const { path, to } of changes) {
    let node: Record<string | number, unknown> = result;
    path.slice(0, -1).forEach((key, i) => {
      const next = node[key];
      if (typeof next !== 'object' || next === null) node[key] = typeof path[i + 1] === 'number' ? [] : {};
      node = node[key] as Record<string | number, unknown>;
    });
    node[path[path.length - 1]!] = structuredClone(to);
  }
  return result;
}
