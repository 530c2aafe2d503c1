/** Requests and answers of the model-verification page (part 2 §3 and §7). */
import { z } from 'zod';
import { paginationQuerySchema } from './admin';
import { datasetTypeSchema } from './study';

export const datasetQuerySchema = z.object({ dataset_type: datasetTypeSchema });

/**
 * Where an AI model version came from, as its parameters record it (`trained_by`): set-up
 * (`npm start` from the datasets), the dashboard's dataset addition, a retrain there, or a
 * researcher's upload.
 */
export const MODEL_ORIGINS = ['setup', 'admin_dataset', 'admin_retrain', 'admin_upload'] as const;
export type ModelOrigin = (typeof MODEL_ORIGINS)[number];
export const originOf = (trainedBy: unknown): ModelOrigin =>
  MODEL_ORIGINS.includes(trainedBy as ModelOrigin) ? (trainedBy as ModelOrigin) : 'setup';
export const userModelListQuerySchema = paginationQuerySchema.extend({
  dataset_type: datasetTypeSchema,
  include_unlearned: z.enum(['true', 'false']).default('true').transform((v) => v === 'true'),
});

export const aiModelStatusSchema = z.object({
  dataset_type: datasetTypeSchema,
  model_identifier: z.string().nullable(),
  model_file_exists: z.boolean(),
  current_performance: z.object({
    test_accuracy: z.number().nullable(),
    test_f1_score: z.number().nullable(),
    test_samples: z.number().int().nullable(),
    /** On the same test rows: always answering the training rows' majority outcome, and a regularised logistic regression fitted in the same build (null for a model built before these were recorded, or uploaded). */
    baseline_majority_accuracy: z.number().nullable(),
    baseline_logistic_accuracy: z.number().nullable(),
    error: z.string().nullable(),
  }),
  database_info: z.object({
    model_exists: z.boolean(),
    training_samples: z.number().int().nullable(),
    validation_samples: z.number().int().nullable(),
    cross_validation_score: z.number().nullable(),
    test_score: z.number().nullable(),
    training_time_seconds: z.number().nullable(),
    training_completed_at: z.string().nullable(),
  }),
  dataset_info: z.object({
    total_samples: z.number().int().nullable(),
    positive_samples: z.number().int().nullable(),
    negative_samples: z.number().int().nullable(),
    balance_ratio: z.number().nullable(),
    feature_count: z.number().int().nullable(),
    error: z.string().nullable(),
  }),
});

/** `training_failed`: the last fit on every stored answer failed (its reason in `failure_reason`); the main experiment shows this participant the AI's own bars. */
export const trainingStatusSchema = z.enum(['trained', 'trainable', 'insufficient_data', 'training_failed']);
export const userModelListSchema = z.object({
  dataset_type: datasetTypeSchema,
  user_models: z.array(
    z.object({
      user_id: z.number().int(),
      username: z.string(),
      display_name: z.string().nullable(),
      email: z.null(),
      training_status: trainingStatusSchema,
      pre_experiment_responses: z.number().int(),
      file_size: z.number().int().nullable(),
      metadata: z.object({
        training_results: z
          .object({
            train_accuracy: z.number().nullable(),
            training_duration_seconds: z.number().nullable(),
            num_trees: z.number().int().nullable(),
            /** Answers the model was fitted on; fewer than pre_experiment_responses means a retrain would refit it. */
            training_samples: z.number().int(),
          })
          .nullable(),
      }),
      /** Why the last fit failed; null unless training_status is training_failed. */
      failure_reason: z.string().nullable(),
    }),
  ),
});

export const userPerformanceSchema = z.object({
  user_id: z.number().int(),
  username: z.string(),
  /** Share of the participant's pre-experiment answers equal to the ground truth. */
  user_accuracy_vs_ground_truth: z.number().nullable(),
  valid_cases: z.number().int(),
  /** Confidence 4–5. */
  high_confidence_accuracy: z.number().nullable(),
  /** Confidence 1–2. */
  low_confidence_accuracy: z.number().nullable(),
  confidence_distribution: z.object({ high: z.number().int(), medium: z.number().int(), low: z.number().int() }),
});

export const comparisonSchema = z.object({
  dataset_type: datasetTypeSchema,
  ai_model: z.object({
    test_accuracy: z.number().nullable(),
    test_precision: z.number().nullable(),
    test_recall: z.number().nullable(),
    test_f1_score: z.number().nullable(),
  }),
  user_models: z.object({
    count: z.number().int(),
    average_accuracy: z.number().nullable(),
    /** Sample standard deviation (n − 1); null below two participants. */
    std_accuracy: z.number().nullable(),
    min_accuracy: z.number().nullable(),
    max_accuracy: z.number().nullable(),
    individual_performances: z.array(z.object({ user_id: z.number().int(), username: z.string(), accuracy: z.number(), valid_cases: z.number().int() })),
  }),
  comparison: z.object({
    ai_better_than_users: z.boolean().nullable(),
    /** AI test accuracy minus the participants' mean accuracy. */
    ai_vs_avg_user: z.number().nullable(),
    users_outperforming_ai: z.number().int(),
  }),
});

export const userModelDebugSchema = z.object({
  success: z.literal(true),
  user_id: z.number().int(),
  username: z.string(),
  dataset_type: datasetTypeSchema,
  availability: z.object({ status: trainingStatusSchema, data_count: z.number().int(), can_train: z.boolean(), message: z.string() }),
  data_analysis: z.object({
    total_responses: z.number().int(),
    /** Answers predicting the positive (1) and negative (0) class; named after the adult dataset as the spec names them. */
    prediction_distribution: z.object({ high_income: z.number().int(), low_income: z.number().int() }),
    confidence_stats: z.object({ mean: z.number().nullable() }),
  }),
  estimated_params: z.object({ category: z.string(), num_leaves: z.number().int().nullable(), max_depth: z.number().int().nullable(), learning_rate: z.number().nullable() }),
  performance_info: z
    .object({
      train_accuracy: z.number().nullable(),
      num_trees: z.number().int().nullable(),
      training_duration_seconds: z.number().nullable(),
      data_size_category: z.string().nullable(),
      training_timestamp: z.string(),
    })
    .nullable(),
  recommendations: z.array(z.string()),
  raw_user_data: z.array(z.object({ case_id: z.string(), user_prediction: z.number().int(), user_confidence: z.number().int(), response_time_ms: z.number().int() })),
});

export const retrainBodySchema = z.object({
  dataset_type: datasetTypeSchema,
  num_cv_folds: z.number().int().min(2).max(10).default(5),
  /** Share of the training table held out for the new model's test metrics. */
  test_size: z.number().min(0.05).max(0.5).default(0.2),
});

/** A researcher's own model: a LightGBM `dump_model()` JSON (with its encoding) or an `xdl-gbdt` file. */
export const uploadModelBodySchema = z.object({
  dataset_type: datasetTypeSchema,
  model: z.record(z.string(), z.unknown(), { message: 'model must be the JSON object of a LightGBM dump_model() or an xdl-gbdt file' }),
  /** The `encoding.json` beside a LightGBM dump: feature order, categorical features, category codes. */
  encoding: z.record(z.string(), z.unknown()).optional(),
});

const heldOutMetricsSchema = z.object({
  test_accuracy: z.number(),
  test_precision: z.number(),
  test_recall: z.number(),
  test_f1_score: z.number(),
  test_logloss: z.number(),
  test_samples: z.number().int(),
});

/** A retrain: a candidate version scored beside the active model on the same experiment cases; activate it to use it. */
export const retrainResultSchema = z.object({
  success: z.literal(true),
  message: z.string(),
  dataset_type: datasetTypeSchema,
  model_identifier: z.string(),
  /** `candidate` until activated; a retrain that reproduces a stored version keeps that version's status. */
  status: z.enum(['candidate', 'active', 'retired']),
  cases_evaluated: z.number().int(),
  candidate_metrics: heldOutMetricsSchema,
  current_model: z.object({ model_identifier: z.string(), metrics: heldOutMetricsSchema }).nullable(),
  cross_validation_score: z.number(),
  training_time_seconds: z.number(),
});

/** Every stored AI model version of a dataset, newest first, for activation and rollback. */
export const aiModelVersionsSchema = z.object({
  dataset_type: datasetTypeSchema,
  versions: z.array(
    z.object({
      model_identifier: z.string(),
      status: z.enum(['candidate', 'active', 'retired']),
      origin: z.enum(MODEL_ORIGINS),
      /** As recorded when the version was made, on its own evaluation rows (test_samples of them). */
      test_accuracy: z.number().nullable(),
      test_samples: z.number().int().nullable(),
      /** Every version on the same experiment cases: the figure to compare versions by. */
      experiment_case_accuracy: z.number().nullable(),
      experiment_cases: z.number().int(),
      trained_at: z.string(),
    }),
  ),
});

export const uploadModelResultSchema = z.object({
  success: z.literal(true),
  dataset_type: datasetTypeSchema,
  model_identifier: z.string(),
  /** `candidate` until an administrator activates it; an identical file uploaded again keeps its status. */
  status: z.enum(['candidate', 'active', 'retired']),
  source_format: z.enum(['lightgbm', 'xdl-gbdt']),
  num_trees: z.number().int(),
  cases_evaluated: z.number().int(),
  /** Both models on the same experiment cases (held out from the set-up's model; an uploaded one may have trained on some). */
  uploaded_metrics: heldOutMetricsSchema,
  current_model: z.object({ model_identifier: z.string(), metrics: heldOutMetricsSchema }).nullable(),
});

export const activateModelBodySchema = z.object({
  dataset_type: datasetTypeSchema,
  model_identifier: z.string().regex(/^[A-Za-z0-9_.-]{1,100}$/, 'model_identifier is letters, digits, _, . or -'),
});

export const activateModelResultSchema = z.object({
  success: z.literal(true),
  dataset_type: datasetTypeSchema,
  model_identifier: z.string(),
  previous_model_identifier: z.string().nullable(),
  changed: z.boolean(),
});
