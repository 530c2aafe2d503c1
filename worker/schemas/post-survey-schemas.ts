/**
 * The post-survey's schemas: the shape its definition must have (checked when the Worker starts,
 * so an inconsistent edit of `post-survey-instrument.ts` never reaches participants) and the wire
 * shapes of `/api/post-survey`.
 */
import { z } from 'zod';
import { freeText } from './free-text';
import { sessionIdSchema } from './experiment';
import { ANCHORS, FACTORS, SECTION_IDS, type Factor, type PostSurveyDefinition } from './post-survey';
import { postSurveyInstrument } from './post-survey-instrument';

const text = z.object({ ja: z.string().min(1), en: z.string().min(1) });
const name = z.string().regex(/^[a-z][a-z0-9_]*$/);
const option = z.object({ value: name, label: text });
const optional = z.boolean().optional();
const shownTo = z.enum(['ai', 'explanation']).optional();

const questionSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('number'), name, label: text, min: z.number(), max: z.number(), unit: text.optional(), optional, shownTo }),
  z.object({ kind: z.literal('radio'), name, label: text, options: z.array(option).min(2), optional, shownTo }),
  z.object({
    kind: z.literal('scale'),
    name,
    label: text,
    min: z.number().int(),
    max: z.number().int(),
    anchors: z.enum(ANCHORS),
    factor: z.enum(FACTORS).optional(),
    reverse: z.boolean().optional(),
    /** Earlier ratings shown as chips beside this question when all of them are answered. */
    previousAnswers: z.array(name).optional(),
    optional,
    shownTo,
  }),
  z.object({ kind: z.literal('text'), name, label: text, maxLength: z.number().int().positive(), minLength: z.number().int().min(0).optional(), optional, shownTo }),
  z.object({ kind: z.literal('multiselect'), name, label: text, options: z.array(option).min(1), otherMaxLength: z.number().int().positive(), optional, shownTo }),
  z.object({ kind: z.literal('info'), name, label: text, body: text, bodyUnadjusted: text.optional(), figure: z.literal('benevolent_example').optional() }),
]);

export const postSurveyDefinitionSchema = z
  .object({
    sections: z
      .array(z.object({ id: z.enum(SECTION_IDS), title: text, intro: text.optional(), questions: z.array(questionSchema).min(1) }))
      .length(SECTION_IDS.length),
  })
  .superRefine((d, ctx) => {
    d.sections.forEach((s, i) => {
      if (s.id !== SECTION_IDS[i]) ctx.addIssue({ code: 'custom', message: `section ${i + 1} must be ${SECTION_IDS[i]}` });
    });
    for (const q of d.sections.flatMap((s) => s.questions)) {
      if (q.kind === 'scale' && (q.min !== 1 || (q.max !== 5 && q.max !== 7))) ctx.addIssue({ code: 'custom', message: `${q.name} must be a 1–5 or 1–7 scale` });
    }
    const names = d.sections.flatMap((s) => s.questions.map((q) => q.name));
    const seen = new Set<string>();
    for (const n of names) {
      if (seen.has(n)) ctx.addIssue({ code: 'custom', message: `question ${n} appears twice` });
      seen.add(n);
    }
  });

/** The definition in use, checked once when first loaded (the Worker's routes import it). */
export const checkedPostSurvey: PostSurveyDefinition = postSurveyDefinitionSchema.parse(postSurveyInstrument);

const sectionAnswersSchema = z.record(z.string().max(100), z.union([freeText(5000), z.number(), z.null()]));

/** `POST /api/post-survey/`: the session and each section's answers by field name. */
export const postSurveyBodySchema = z.object({
  session_id: sessionIdSchema,
  demographics: sectionAnswersSchema,
  benevolent: sectionAnswersSchema,
  bigfive: sectionAnswersSchema,
  locus: sectionAnswersSchema,
  cognition: sectionAnswersSchema,
});
export type PostSurveyBody = z.infer<typeof postSurveyBodySchema>;

export const postSurveyScoresSchema = z.object(Object.fromEntries(FACTORS.map((f) => [f, z.number().nullable()])) as Record<Factor, z.ZodNullable<z.ZodNumber>>);

export const postSurveyRecordSchema = z.object({
  success: z.literal(true),
  session_id: z.string(),
  demographics: sectionAnswersSchema,
  benevolent: sectionAnswersSchema,
  bigfive: sectionAnswersSchema,
  locus: sectionAnswersSchema,
  cognition: sectionAnswersSchema,
  experiment_rating: z.number().int().nullable(),
  overall_feedback: z.string().nullable(),
  scores: postSurveyScoresSchema,
  created_at: z.string(),
});

export const postSurveySubmitResultSchema = z.object({
  success: z.literal(true),
  message: z.string(),
  session_id: z.string(),
  scores: postSurveyScoresSchema,
});

export const postSurveyCheckSchema = z.object({
  session_id: z.string(),
  exists: z.boolean(),
  /** What the participant's condition showed, so the survey asks only about that. */
  audience: z.object({ ai: z.boolean(), explanations: z.boolean(), adjusted: z.boolean() }),
  /** Whether the main experiment is complete: the survey opens only then, so the page can send the participant back first. */
  main_completed: z.boolean(),
});

/**
 * `GET /api/post-survey/{sessionId}` for anyone but an administrator: that answers are stored and
 * which sections they cover, never the answers (demographics and free text are not for whoever
 * holds or guesses an ID).
 */
export const postSurveyProgressSchema = z.object({
  success: z.literal(true),
  session_id: z.string(),
  sections_done: z.array(z.enum(SECTION_IDS)),
  created_at: z.string(),
});

/** `GET /api/post-survey/completion/{sessionId}`: what the completion page shows, once the post-survey is stored. */
export const completionSchema = z.object({
  session_id: z.string(),
  completion_code: z.string(),
  verification_code: z.string(),
  completed_at: z.string(),
  /**
   * The debrief the participant's condition owes them (its panel stated an accuracy that was not
   * the measured one: statedAccuracy), in both languages, for the page to show in its own; null
   * for every other condition.
   */
  debrief: z.object({ ja: z.string(), en: z.string() }).nullable(),
  /**
   * What the participant's condition pays (its incentive), as the Worker worked it out from their
   * stored trials when they finished: amounts in the currency (two decimals), the correct
   * judgements counted, and whether it has been paid; null without an incentive.
   */
  payment: z
    .object({
      currency: z.string(),
      base: z.number(),
      bonus: z.number(),
      total: z.number(),
      correct_final: z.number().int(),
      correct_pre: z.number().int(),
      paid: z.boolean(),
    })
    .nullable(),
});

const contribution = z.object({ feature: z.string(), importance: z.number(), abs_importance: z.number(), raw_shap: z.number() });
export type FeatureBar = z.infer<typeof contribution>;

/** `GET /api/post-survey/example/{sessionId}`: before (the AI's own bars) and after (as shown) for one of the participant's cases. */
export const adjustmentExampleSchema = z.object({
  session_id: z.string(),
  found: z.boolean(),
  example: z
    .object({
      case_number: z.number().int(),
      dataset_type: z.string(),
      alignment_alpha: z.number(),
      ai_prediction: z.number().int().nullable(),
      features: z.record(z.string(), z.union([z.string(), z.number(), z.null()])),
      before: z.array(contribution),
      after: z.array(contribution),
    })
    .nullable(),
});
