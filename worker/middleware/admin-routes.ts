import type { AdminRole } from '../schemas/admin-roles';

/**
 * The least role each administrator route needs (issue #60), in one table, as the participant
 * routes declare their phase in `db/session-lifecycle.ts`. The guard reads it for every call to
 * an admin area; a route missing here needs an owner (it fails closed), and the suite fails until
 * it is declared (test/worker/admin-roles.test.ts walks every route × every role).
 *
 * - assistant: monitoring only: the dashboard's figures, recruitment progress, the participants
 *   table (which holds no free-text answer), the study's configuration and the datasets' state.
 * - researcher: also the raw data (answers, free text, consent records, exports), payments,
 *   recruitment settings, datasets, models, synthetic participants and deletion of participants.
 * - owner: also what ends the whole study's data at once.
 */
export const ADMIN_ROUTE_ROLES = {
  'GET /api/admin/active': 'assistant',
  'GET /api/admin/stats': 'assistant',
  'GET /api/experiments/statistics': 'assistant',
  'GET /api/admin/users': 'assistant',
  'GET /api/admin/sessions': 'assistant',
  'GET /api/admin/recruitment': 'assistant',
  'GET /api/admin/recruitment/progress': 'assistant',
  'GET /api/admin/analytics/reliance': 'assistant',
  'GET /api/admin/study-config': 'assistant',
  'GET /api/admin/datasets': 'assistant',
  'GET /api/admin/dataset-consistency': 'assistant',
  'GET /api/model-verification/ai-model/status': 'assistant',

  'GET /api/admin/audit-log': 'researcher',
  'GET /api/admin/responses': 'researcher',
  'GET /api/admin/responses/main/:id': 'researcher',
  'GET /api/admin/post-survey/responses': 'researcher',
  'GET /api/admin/consent-records': 'researcher',
  'GET /api/admin/consent-records/export': 'researcher',
  'GET /api/admin/export-jobs': 'researcher',
  'GET /api/admin/export-jobs/:id': 'researcher',
  'GET /api/admin/export-jobs/:id/file': 'researcher',
  'POST /api/admin/export-jobs': 'researcher',
  'POST /api/admin/export-jobs/:id/resume': 'researcher',
  'GET /api/enhanced-export/:name': 'researcher',
  'GET /api/admin/bonuses': 'researcher',
  'GET /api/admin/bonuses/csv': 'researcher',
  'GET /api/admin/bonuses/prolific': 'researcher',
  'POST /api/admin/bonuses/mark-paid': 'researcher',
  'PUT /api/admin/recruitment': 'researcher',
  'POST /api/admin/datasets': 'researcher',
  'POST /api/admin/datasets/preview': 'researcher',
  'POST /api/admin/datasets/:dataset/enabled': 'researcher',
  'POST /api/admin/register-user-responses': 'researcher',
  'POST /api/admin/register-main-experiment-responses': 'researcher',
  'GET /api/model-verification/ai-model/details': 'researcher',
  'GET /api/model-verification/ai-model/versions': 'researcher',
  'GET /api/model-verification/comparison/ai-vs-users': 'researcher',
  'GET /api/model-verification/user-models/list': 'researcher',
  'GET /api/model-verification/user-models/:userId/performance': 'researcher',
  'POST /api/model-verification/ai-model/activate': 'researcher',
  'POST /api/model-verification/ai-model/retrain': 'researcher',
  'POST /api/model-verification/ai-model/upload': 'researcher',
  'GET /api/user-models/debug/:userId': 'researcher',
  'POST /api/user-models/train/:userId': 'researcher',
  'DELETE /api/admin/users/:id': 'researcher',
  'DELETE /api/admin/responses/:id': 'researcher',
  'DELETE /api/admin/post-survey/responses/:id': 'researcher',
  'DELETE /api/admin/cleanup/model-files': 'researcher',

  'DELETE /api/admin/cleanup/all-data': 'owner',
} as const satisfies Record<string, AdminRole>;

/** The role a call needs: its route's entry (`METHOD /path/:param` as routed; HEAD as GET), an owner where none is declared. */
export function roleNeeded(method: string, routePath: string): AdminRole {
  const key = `${method === 'HEAD' ? 'GET' : method} ${routePath.replace(/\/+$/, '')}`;
  return (ADMIN_ROUTE_ROLES as Record<string, AdminRole>)[key] ?? 'owner';
}
