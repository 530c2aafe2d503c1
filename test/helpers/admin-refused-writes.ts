/**
 * For each admin route that writes, a request to it that is refused for what it asks, not for its
 * form (issue #63): the admin-refusals suite checks each stores nothing, the roles suite sends them
 * where a role may call the route, so walking every route changes nothing.
 * `partial`: a synthetic participant with too few pre-experiment answers for the main experiment.
 */
export type Refused = { path: string; body?: unknown; status: number };

export const refusedAdminWrites = (partial: string): Record<string, () => Refused> => ({
  'POST /api/admin/register-main-experiment-responses': () => ({
    path: `/api/admin/register-main-experiment-responses?participant_name=test_x${crypto.randomUUID().slice(0, 6)}&dataset_type=compas&num_responses=2`,
    status: 409,
  }),
  'POST /api/admin/register-user-responses': () => ({
    path: `/api/admin/register-user-responses?participant_name=${partial}&dataset_type=adult_income&num_responses=2`,
    status: 409,
  }),
  'DELETE /api/admin/users/:id': () => ({ path: '/api/admin/users/999999999', status: 404 }),
  'DELETE /api/admin/responses/:id': () => ({ path: '/api/admin/responses/999999999?experiment_type=pre_experiment', status: 404 }),
  'DELETE /api/admin/post-survey/responses/:id': () => ({ path: '/api/admin/post-survey/responses/999999999', status: 404 }),
  'DELETE /api/admin/cleanup/all-data': () => ({ path: '/api/admin/cleanup/all-data', status: 400 }),
  'DELETE /api/admin/cleanup/model-files': () => ({ path: '/api/admin/cleanup/model-files?confirm_deletion=false', status: 400 }),
  'POST /api/admin/datasets/:dataset/enabled': () => ({ path: '/api/admin/datasets/no_such_dataset/enabled', body: { enabled: true }, status: 404 }),
  'POST /api/admin/datasets': () => ({ path: '/api/admin/datasets', body: { definition: { id: 'half' }, csv: 'a,b\n1,2\n' }, status: 400 }),
  'POST /api/admin/datasets/preview': () => ({ path: '/api/admin/datasets/preview', body: { definition: { id: 'half' }, csv: 'a,b\n1,2\n' }, status: 400 }),
  'PUT /api/admin/recruitment': () => ({ path: '/api/admin/recruitment', body: { status: 'open', targets: { overallTarget: -1, cellTarget: null, cellTargets: {} } }, status: 400 }),
  'POST /api/admin/export-jobs/:id/resume': () => ({ path: `/api/admin/export-jobs/${crypto.randomUUID()}/resume`, status: 404 }),
  'POST /api/admin/export-jobs': () => ({ path: '/api/admin/export-jobs', body: { format: 'xlsx' }, status: 400 }),
  'POST /api/admin/bonuses/mark-paid': () => ({ path: '/api/admin/bonuses/mark-paid', body: { session_ids: ['ZZZZZZZ9'] }, status: 400 }),
  'POST /api/model-verification/ai-model/activate': () => ({ path: '/api/model-verification/ai-model/activate', body: { dataset_type: 'compas', model_identifier: 'no_such_model' }, status: 404 }),
  'POST /api/model-verification/ai-model/upload': () => ({ path: '/api/model-verification/ai-model/upload', body: { dataset_type: 'compas', model: { tree_info: 'not trees' } }, status: 400 }),
  'POST /api/model-verification/ai-model/retrain': () => ({ path: '/api/model-verification/ai-model/retrain', body: { dataset_type: 'speed_dating' }, status: 409 }),
  'POST /api/user-models/train/:userId': () => ({ path: '/api/user-models/train/999999999', status: 404 }),
  'POST /api/admin/login': () => ({ path: '/api/admin/login', body: { password: 'not-the-password' }, status: 401 }),
  'POST /api/admin/logout': () => ({ path: '/api/admin/logout', status: 200 }),
});
