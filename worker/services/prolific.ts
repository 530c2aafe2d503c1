/**
 * The Prolific loop: participants who arrived with Prolific's URL parameters are sent back to
 * Prolific with the study's completion code, its screen-out code, or its return code. Everyone
 * else sees none of it. The links carry only the study's codes, never a participant's IDs.
 */
import type { z } from 'zod';
import type { SessionRow } from '../db/queries/sessions';
import type { prolificStatusSchema } from '../schemas/experiment';
import { studyConfig } from '../schemas/study';
import { studyCodes } from '../study-codes';

export const prolificUrl = (code: string) => studyConfig.prolific.completionUrl.replace('{code}', encodeURIComponent(code));

type LinkSession = Pick<SessionRow, 'prolific' | 'postSurveyCompletedAt' | 'screenedOutAt'>;

export function prolificLinks(session: LinkSession): z.infer<typeof prolificStatusSchema> {
  const { prolificReturnCode: returnCode, prolificScreenOutCode: screenOutCode } = studyCodes;
  const completed = session.postSurveyCompletedAt !== null;
  const screenedOut = session.screenedOutAt !== null;
  const via = session.prolific;
  return {
    recruited_via_prolific: via,
    completed,
    screened_out: screenedOut,
    completion_url: via && completed ? prolificUrl(studyCodes.completionCode) : null,
    screen_out_url: via && screenedOut && screenOutCode ? prolificUrl(screenOutCode) : null,
    return_url: via && returnCode ? prolificUrl(returnCode) : null,
  };
}
