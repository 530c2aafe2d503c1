import { Hono } from 'hono';
import type { z } from 'zod';
import type { AppEnv } from '../../env';
import { findSession } from '../../db/queries/sessions';
import {
  datasetConsistencyQuerySchema,
  type datasetConsistencyResponseSchema,
  registerMainResponsesQuerySchema,
  registerUserResponsesQuerySchema,
  type registerMainResponsesResultSchema,
  type registerUserResponsesResultSchema,
} from '../../schemas/admin';
import { studyConfig } from '../../schemas/study';
import { registerMainResponses, registerPreResponses } from '../../services/registration';
import { validate } from '../../validate';

/** Part 2 §7 registration tools (query parameters as the spec sends them); audited by the admin guard. */
export const adminRegistrationRoutes = new Hono<AppEnv>()
  .get('/dataset-consistency', validate('query', datasetConsistencyQuerySchema), async (c) => {
    const { participant_name, dataset_type } = c.req.valid('query');
    const session = await findSession(c.var.db, participant_name);
    const body: z.infer<typeof datasetConsistencyResponseSchema> = {
      state: !session ? 'new_user' : session.datasetType === dataset_type ? 'success' : 'mismatch',
      stored_dataset_type: session?.datasetType ?? null,
    };
    return c.json(body);
  })
  .post('/register-user-responses', validate('query', registerUserResponsesQuerySchema), async (c) => {
    const q = c.req.valid('query');
    const input = { name: q.participant_name, datasetType: q.dataset_type, numResponses: q.num_responses, accuracyRate: q.accuracy_rate, confidenceBias: q.confidence_bias };
    const r = await registerPreResponses(c.var.db, input, new Date().toISOString());
    const total = r.stats.total_responses;
    const body: z.infer<typeof registerUserResponsesResultSchema> = {
      success: true,
      message: `${r.stored.stored} answers registered for ${q.participant_name} (${r.stored.duplicates} already stored; accuracy ${(r.stats.accuracy_rate * 100).toFixed(1)} %, ${(q.accuracy_rate * 100).toFixed(0)} % asked for)`,
      user_id: r.session.userId,
      session_id: r.session.sessionId,
      experiment_stats: r.stats,
      case_set_info: {
        case_set: 'fixed',
        positive_cases: r.caseSet.positive_cases,
        negative_cases: r.caseSet.negative_cases,
        message: `The first ${q.num_responses} cases of the participant's fixed pre-experiment set`,
      },
      next_steps: { can_train_user_model: total >= studyConfig.userModelMinResponses, can_resume_experiment: true },
    };
    return c.json(body);
  })
  .post('/register-main-experiment-responses', validate('query', registerMainResponsesQuerySchema), async (c) => {
    const q = c.req.valid('query');
    const input = { name: q.participant_name, datasetType: q.dataset_type, numResponses: q.num_responses, accuracyRate: q.accuracy_rate, alpha: q.ai_alignment_alpha, condition: q.condition };
    const r = await registerMainResponses(c.var.db, c.env.MODELS, input, new Date().toISOString());
    const body: z.infer<typeof registerMainResponsesResultSchema> = {
      success: true,
      message: `${r.stored} main-experiment cases registered for ${q.participant_name} (initial accuracy ${(r.realisedAccuracy * 100).toFixed(1)} %, ${(q.accuracy_rate * 100).toFixed(0)} % asked for)`,
      registered_cases: r.details.length,
      realised_accuracy_rate: r.realisedAccuracy,
      user_id: r.session.userId,
      session_id: r.session.sessionId,
      case_details: r.details,
      condition: r.condition.name,
    };
    return c.json(body);
  });
