import { adminBonusRoutes } from './routes/admin/bonuses';
import { Hono } from 'hono';
import { secureHeaders } from 'hono/secure-headers';
import type { AppEnv } from './env';
import { handleError, notFound } from './errors';
import { guardAdminAreas } from './middleware/admin-auth';
import { limitIdLookups } from './middleware/id-lookups';
import { limitBody, rejectMalformedJson } from './middleware/json-body';
import { holdAnswersWhenClosed } from './middleware/recruitment';
import { withDb } from './middleware/with-db';
import { adminAuditLogRoutes } from './routes/admin/audit-log';
import { adminAuthRoutes } from './routes/admin/auth';
import { adminCleanupRoutes } from './routes/admin/cleanup';
import { adminAnalyticsRoutes } from './routes/admin/analytics';
import { adminDashboardRoutes } from './routes/admin/dashboard';
import { adminDatasetRoutes } from './routes/admin/datasets';
import { adminRegistrationRoutes } from './routes/admin/registration';
import { caseRoutes } from './routes/cases';
import { consentRoutes } from './routes/consent';
import { datasetAssignmentRoutes } from './routes/dataset-assignment';
import { datasetRoutes } from './routes/datasets';
import { explanationRoutes } from './routes/explanations';
import { consentExportRoutes, exportJobRoutes, exportRoutes } from './routes/exports';
import { mainExperimentRoutes } from './routes/main-experiment';
import { modelVerificationRoutes } from './routes/model-verification';
import { postSurveyRoutes } from './routes/post-survey';
import { preExperimentRoutes } from './routes/pre-experiment';
import { adminRecruitmentRoutes, recruitmentRoutes } from './routes/recruitment';
import { resumeRoutes } from './routes/resume';
import { sessionRoutes } from './routes/sessions';
import { statisticsRoutes } from './routes/statistics';
import { statusRoutes } from './routes/status';
import { userModelRoutes } from './routes/user-models';

/** The whole API as one chain, so `AppType` carries every route to the SPA's typed client. */
// Not strict about a trailing slash: the spec names `POST /api/post-survey/` with one.
const app = new Hono<AppEnv>({ strict: false })
  .basePath('/api')
  .use(
    // JSON only: no content may load from an API response, and none may be framed.
    secureHeaders({
      contentSecurityPolicy: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] },
      xFrameOptions: 'DENY',
      referrerPolicy: 'strict-origin-when-cross-origin',
      strictTransportSecurity: 'max-age=31536000; includeSubDomains',
    }),
    // The admin guard answers before any body is read, so a large body is only read for an administrator.
    withDb,
    guardAdminAreas,
    // Before anything that can refuse a participant's call: every refusal of a route that tells IDs apart is counted.
    limitIdLookups,
    holdAnswersWhenClosed,
    limitBody,
    rejectMalformedJson,
  )
  .route('/status', statusRoutes)
  .route('/recruitment', recruitmentRoutes)
  .route('/datasets', datasetRoutes)
  .route('/experiments/statistics', statisticsRoutes)
  .route('/experiments', sessionRoutes)
  .route('/experiments', caseRoutes)
  .route('/experiments', preExperimentRoutes)
  .route('/experiments', resumeRoutes)
  .route('/experiments', mainExperimentRoutes)
  .route('/experiments/dataset-assignment', datasetAssignmentRoutes)
  .route('/consent', consentRoutes)
  .route('/post-survey', postSurveyRoutes)
  .route('/', userModelRoutes)
  .route('/', explanationRoutes)
  .route('/admin', adminAuthRoutes)
  .route('/admin/audit-log', adminAuditLogRoutes)
  .route('/admin/consent-records', consentExportRoutes)
  .route('/admin/cleanup', adminCleanupRoutes)
  .route('/admin/export-jobs', exportJobRoutes)
  .route('/admin/bonuses', adminBonusRoutes)
  .route('/admin', adminDashboardRoutes)
  .route('/admin/analytics', adminAnalyticsRoutes)
  .route('/admin/recruitment', adminRecruitmentRoutes)
  .route('/admin/datasets', adminDatasetRoutes)
  .route('/admin', adminRegistrationRoutes)
  .route('/enhanced-export', exportRoutes)
  .route('/model-verification', modelVerificationRoutes);

app.onError(handleError);
app.notFound((c) => handleError(notFound(`No API route for ${c.req.method} ${c.req.path}`), c));

export type AppType = typeof app;
export default app;
