/**
 * The post-survey's side effects around its state machine: which session it is for (route
 * state, the stored participant, or the debug override), the answers already stored or a draft
 * kept in this browser (so a reload loses nothing), sending, and the spec's redirects after
 * success (2 s) or "already answered" (1 s).
 */
import { useEffect, useReducer } from 'react';
import { useNavigate } from 'react-router';
import { postSurveyFor, SECTION_IDS, type AnswerValue, type PostSurveyDefinition, type SectionId } from '../../../worker/schemas/post-survey';
import { studyConfig } from '../../../worker/schemas/study-config';
import { api, ApiError, NetworkError, unwrap } from '../../lib/api';
import { paths } from '../../app/paths';
import { logger } from '../../lib/error-log';
import { phaseOfPath, type SentBack } from '../../components/ui/sent-back-notice';
import { fetchResume, resumeDestination } from '../../lib/resume';
import { storedParticipant } from '../../lib/participant';
import { readStorage, storageKeys, writeStorage } from '../../lib/storage-keys';
import { emptyAnswers, initialSurveyState, surveyReducer, type Answers, type SubmitError } from './post-survey-machine';

const draftKey = (sessionId: string) => `${storageKeys.postSurveyDraftPrefix}${sessionId}`;

function readDraft(sessionId: string): Answers | null {
  try {
    const parsed = JSON.parse(readStorage(draftKey(sessionId)) ?? 'null') as Partial<Answers> | null;
    if (!parsed || typeof parsed !== 'object') return null;
    return { ...emptyAnswers(), ...Object.fromEntries(SECTION_IDS.filter((id) => parsed[id] && typeof parsed[id] === 'object').map((id) => [id, parsed[id]])) };
  } catch {
    return null;
  }
}

/**
 * Where the survey stands, and the draft to go on with. The server never hands a participant's
 * stored answers back (an ID is not enough to read someone's survey), so a stored survey means the
 * participant is done and belongs on the completion page; before the main experiment is complete
 * the survey is not theirs yet. A failed read is the spec's retrieval failure (null).
 */
async function loadAnswers(sessionId: string): Promise<{ answers: Answers; stored: boolean; mainCompleted: boolean; definition: PostSurveyDefinition } | null> {
  try {
    const check = await unwrap(await api.api['post-survey'].check[':sessionId'].$get({ param: { sessionId } }));
    // Only what the participant's condition showed them is asked about.
    return { answers: readDraft(sessionId) ?? emptyAnswers(), stored: check.exists, mainCompleted: check.main_completed, definition: postSurveyFor(check.audience) };
  } catch (err) {
    logger.warn(`post-survey: the session's state could not be read: ${String(err)}`);
    return null;
  }
}

/** Where a participant whose main experiment is not complete belongs (resume data from the server); null when that cannot be read. */
async function whereTheyBelong(sessionId: string) {
  try {
    return resumeDestination(await fetchResume(sessionId));
  } catch (err) {
    logger.warn(`post-survey: where the participant belongs could not be read: ${String(err)}`);
    return null;
  }
}

/** The text of a failed submit (part 2 §8). */
function submitError(err: unknown): SubmitError {
  if (err instanceof NetworkError) return { key: 'postSurvey.errors.network' };
  if (err instanceof ApiError) {
    if (Array.isArray(err.detail)) return { key: 'postSurvey.errors.invalid', items: err.detail.map((d) => d.msg) };
    if (typeof err.detail === 'string') return { key: 'postSurvey.errors.detail', values: { detail: err.detail } };
    return { key: 'postSurvey.errors.status', values: { status: err.status } };
  }
  return { key: 'postSurvey.errors.format' };
}

export function usePostSurvey(input: { routeSessionId?: string; debug: boolean; debugSessionId: string | null }) {
  const navigate = useNavigate();
  const [state, dispatch] = useReducer(surveyReducer, undefined, initialSurveyState);
  const sessionId = (input.debug ? input.debugSessionId : null) ?? input.routeSessionId ?? storedParticipant()?.sessionId ?? null;
  const loading = state.screen.kind === 'loading';

  useEffect(() => {
    if (!loading) return;
    if (!sessionId) {
      dispatch({ type: 'session_missing', messageKey: 'postSurvey.noSession' });
      return;
    }
    let cancelled = false;
    void (async () => {
      const loaded = await loadAnswers(sessionId);
      if (cancelled) return;
      if (!loaded) return dispatch({ type: 'session_missing', messageKey: 'postSurvey.sessionReadFailed' });
      if (loaded.stored) return void navigate(paths.complete, { replace: true, state: { sessionId } });
      if (!loaded.mainCompleted) {
        // Not theirs yet: back to where they stopped, before they fill 86 items for nothing.
        const destination = await whereTheyBelong(sessionId);
        if (cancelled) return;
        if (destination) {
          const sentBack: SentBack = { reason: 'post_survey_not_yet', phase: phaseOfPath(destination.path) };
          return void navigate(destination.path, { replace: true, state: { ...destination.state, sentBack } });
        }
        return dispatch({ type: 'session_missing', messageKey: 'postSurvey.sessionReadFailed' });
      }
      dispatch({ type: 'loaded', sessionId, answers: loaded.answers, definition: loaded.definition });
    })();
    return () => {
      cancelled = true;
    };
  }, [loading, sessionId, navigate]);

  // Every change is kept in this browser until the survey is stored.
  useEffect(() => {
    if (state.sessionId && state.screen.kind === 'form') writeStorage(draftKey(state.sessionId), JSON.stringify(state.answers));
  }, [state.answers, state.sessionId, state.screen.kind]);

  const submitting = state.screen.kind === 'submitting';
  useEffect(() => {
    if (!submitting || !state.sessionId) return;
    const id = state.sessionId;
    let cancelled = false;
    (async () => {
      try {
        const sections = Object.fromEntries(
          SECTION_IDS.map((s) => [s, Object.fromEntries(Object.entries(state.answers[s]).filter((e): e is [string, string | number | null] => e[1] !== undefined))]),
        ) as Record<SectionId, Record<string, string | number | null>>;
        await unwrap(await api.api['post-survey'].$post({ json: { session_id: id, ...sections } }));
        writeStorage(draftKey(id), null);
        if (!cancelled) dispatch({ type: 'submitted', alreadyAnswered: false });
      } catch (err) {
        if (err instanceof ApiError && err.status === 409 && err.code === 'already_answered') {
          writeStorage(draftKey(id), null);
          if (!cancelled) dispatch({ type: 'submitted', alreadyAnswered: true });
          return;
        }
        logger.error('post_survey_submit', `post-survey submit failed: ${String(err)}`);
        if (!cancelled) dispatch({ type: 'submit_failed', error: submitError(err) });
      }
    })();
    return () => {
      cancelled = true;
    };
    // The answers are those of the moment submit was pressed.
  }, [submitting]);

  const thanks = state.screen.kind === 'thanks' ? state.screen : null;
  useEffect(() => {
    if (!thanks || !state.sessionId) return;
    const delay = thanks.alreadyAnswered ? studyConfig.timingsMs.postSurveyConflictRedirect : studyConfig.timingsMs.postSurveyRedirect;
    const timer = setTimeout(() => void navigate(paths.complete, { state: { sessionId: state.sessionId, completedSurvey: true } }), delay);
    return () => clearTimeout(timer);
  }, [thanks, state.sessionId, navigate]);

  return {
    state,
    sessionId,
    answer: (section: SectionId, name: string, value: AnswerValue) => dispatch({ type: 'answered', section, name, value }),
    choose: (index: number) => {
      window.scrollTo(0, 0);
      dispatch({ type: 'section_chosen', index });
    },
    next: () => {
      window.scrollTo(0, 0);
      dispatch({ type: 'next' });
    },
    previous: () => {
      window.scrollTo(0, 0);
      dispatch({ type: 'previous' });
    },
    submit: () => {
      window.scrollTo(0, 0);
      dispatch({ type: 'submit' });
    },
    retry: () => dispatch({ type: 'retried' }),
  };
}
