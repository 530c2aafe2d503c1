import { Hono } from 'hono';
import type { z } from 'zod';
import type { AppEnv } from '../env';
import type { publicRecruitmentSchema, recruitmentProgressSchema, recruitmentStateSchema } from '../schemas/recruitment';
import { recruitmentProgress } from '../services/recruitment-progress';
import { recruitmentUpdateSchema } from '../schemas/recruitment';
import { prolificUrl } from '../services/prolific';
import { datasetsWithRoom, recruitmentState, setRecruitment, targetsInForce, type RecruitmentState } from '../services/recruitment';
import { enabledDatasets, studyConfig } from '../schemas/study';
import { studyCodes } from '../study-codes';
import { validate } from '../validate';

const stateBody = (s: RecruitmentState): z.infer<typeof recruitmentStateSchema> => ({
  status: s.status,
  in_progress_may_finish: s.inProgressMayFinish,
  changed_at: s.changedAt,
  targets: s.targets,
  targets_in_force: targetsInForce(s),
  abandon_after_minutes: studyConfig.recruitment.abandonAfterMinutes,
});

/** GET /api/recruitment: whether the study admits newcomers (the entry page asks before it stores anything). */
export const recruitmentRoutes = new Hono<AppEnv>().get('/', async (c) => {
  const s = await recruitmentState(c.var.db);
  c.header('Cache-Control', 'no-store');
  const returnCode = studyCodes.prolificReturnCode;
  const full = s.status === 'open' && (await datasetsWithRoom(c.var.db, s, enabledDatasets(), new Date().toISOString())).length === 0;
  const body: z.infer<typeof publicRecruitmentSchema> = {
    status: s.status,
    full,
    accepting_newcomers: s.status === 'open' && !full,
    in_progress_may_finish: s.inProgressMayFinish,
    prolific_return_url: returnCode ? prolificUrl(returnCode) : null,
  };
  return c.json(body);
});

/** The dashboard's recruitment control: GET the state, PUT a new one (recorded in the audit log). */
export const adminRecruitmentRoutes = new Hono<AppEnv>()
  .get('/', async (c) => c.json(stateBody(await recruitmentState(c.var.db))))
  .get('/progress', async (c) => {
    const body: z.infer<typeof recruitmentProgressSchema> = await recruitmentProgress(c.var.db, new Date());
    return c.json(body);
  })
  .put('/', validate('json', recruitmentUpdateSchema), async (c) => {
    const body = c.req.valid('json');
    const before = await recruitmentState(c.var.db);
    const state = await setRecruitment(c.var.db, {
      status: body.status,
      inProgressMayFinish: body.in_progress_may_finish,
      ...(body.targets === undefined ? {} : { targets: body.targets }),
      now: new Date().toISOString(),
    });
    c.set('audit', {
      action: 'recruitment_status',
      targetType: 'study',
      targetId: 'recruitment',
      details: { from: before.status, to: state.status, in_progress_may_finish: state.inProgressMayFinish, ...(body.targets === undefined ? {} : { targets: body.targets }) },
    });
    return c.json(stateBody(state));
  });
