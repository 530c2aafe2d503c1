/**
 * What an export table is, and the columns several tables share: a table's columns carry their
 * meaning, type, coding and units (the codebook is generated from them) and a reader of the
 * stored row; its rows come out of D1 a page at a time. The record's tables (`tables.ts`) and the
 * research measures' tables (`../analytics/exports.ts`) are both written in it, so a column they
 * share (the condition, the quality flags, the alphas, what was shown) means the same in each.
 */
import type { Db } from '../../db/client';
import { QUALITY_FLAG_DEFINITIONS, QUALITY_FLAGS } from '../analytics/quality-flags';
import { describeCondition } from '../conditions';
import { studyConfig } from '../../schemas/study';

export type ColumnType = 'integer' | 'number' | 'text' | 'boolean' | 'timestamp' | 'category' | 'json';
export type Column<R> = {
  name: string;
  type: ColumnType;
  meaning: string;
  coding?: string;
  units?: string;
  value: (row: R) => unknown;
};
export type ExportFilter = {
  userName?: string;
  /** Reliance tables only: leave participants with a data-quality flag out of the group figures. */
  excludeFlagged?: boolean;
  /** Reliance tables only: count synthetic participants and bypassed sessions too (left out by default). */
  includeSynthetic?: boolean;
  /** Reliance tables only: count only participants who finished the study (by default everyone with trials). */
  completedOnly?: boolean;
};
/**
 * Where a table's reading stands: the key of the last row handed out. A table read one keyset
 * page at a time (`resumable`) moves it as it yields each page and starts after it, so a stepwise
 * export (./stepwise.ts) can stop between pages and go on in another invocation.
 */
export type PageCursor = { after: number };
export type ExportTable<R = never> = {
  name: string;
  description: string;
  columns: Column<R>[];
  /** Pages of rows in id order; each page is read from D1 when the writer asks for it. */
  pages: (db: Db, filter: ExportFilter, cursor?: PageCursor) => AsyncGenerator<R[]>;
  /** Its pages follow `cursor`, so writing it may stop after any page and resume there. */
  resumable?: true;
};

const FLAGS_CODING = `semicolon-separated, empty when none: ${QUALITY_FLAGS.map((f) => `${f} = ${QUALITY_FLAG_DEFINITIONS[f]}`).join('; ')}`;

/** The between-subject condition column, each condition described in the codebook (a session from before conditions ran the spec's design). */
export const conditionColumn = <R>(
  value: (r: R) => unknown,
  meaning = 'Between-subject condition (study configuration conditions[].name), drawn when the main experiment started; empty before',
): Column<R> => ({
  name: 'condition',
  type: 'category',
  meaning,
  get coding() {
    return studyConfig.conditions.map((c) => `${c.name} = ${describeCondition(c)}`).join('; ');
  },
  value,
});

export const qualityFlagsColumn = <R>(flags: (row: R) => string[] | undefined): Column<R> => ({
  name: 'quality_flags',
  type: 'text',
  meaning: 'Data-quality flags raised for the participant (nothing is deleted because of one)',
  coding: FLAGS_CODING,
  value: (r) => (flags(r) ?? []).join(';'),
});


/** Why the AI's own bars were served instead of the alpha mix (every table's `ai_only_reason`). */
export const FALLBACK_REASON_CODING =
  "no_user_model = the participant had no model; user_model_failed = their model could not be fitted (e.g. one answer to every pre-experiment case); user_model_uninformative = their model's bars were all zero; requested = a page asked the AI-only route, on serves recorded before the server decided every serve's kind (none since); unrecorded = a fallback stored before reasons were recorded";

/** The alpha of the explanation shown: one meaning in every table (trials' `alpha`, main-experiment's and served-explanations' `alignment_alpha`). */
export const ALPHA_SHOWN_MEANING =
  "Alpha of the human-aligned explanation shown: the weight of the AI's own contributions in the mixed bars (1 − alpha that of the participant's model); empty for every other kind (the AI's own bars by design or as a fallback, the prediction alone, no AI)";
export const ALPHA_SHOWN: Omit<Column<never>, 'value'> = { name: 'alignment_alpha', type: 'number', meaning: ALPHA_SHOWN_MEANING, units: '0–1' };
/** The alpha the design assigned to a case, whatever was shown (intention to treat). */
export const SCHEDULED_ALPHA: Omit<Column<never>, 'value'> = {
  name: 'scheduled_alpha',
  type: 'number',
  meaning:
    "Alpha the participant's case set fixed for the case when the main experiment started (the design's assignment), whatever was shown: equal to the alpha shown for a human-aligned explanation, kept for a fallback too (an intention-to-treat analysis); empty in a condition without explanations",
  units: '0–1',
};

/** What a group of trials showed, and why (the trial table's and the group tables' coding). */
export const SHOWN_KIND_CODING =
  "human_aligned = the alpha mix of the AI's and the participant's model (alpha 1 = the AI's own shares, within the alpha design); ai_explanation = the AI's own explanation because the condition shows it by design (alphaLevels [1]); ai_only = the AI's own explanation as the fallback for a missing or uninformative participant model, whatever alpha was scheduled (see ai_only_reason); prediction_only = the AI's prediction without bars; no_ai = nothing of the AI";
