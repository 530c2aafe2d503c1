/**
 * An old tab knows it is old. The participant may continue in another tab or on another device;
 * this page then shows cases already answered and anything answered here would be thrown away.
 * When the page comes back into view, or the server answers a send with "the study moved on"
 * (a case already stored, a judgement already given), the page asks the server where the
 * participant is. If the server holds more of this phase than the page knows, or the participant
 * is in another phase, it says so and offers to go there.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiError } from './api';
import { fetchResume, resumeDestination, type ResumeDestination } from './resume';

export type MovedOn = { destination: ResumeDestination; serverCount: number };

/** The server's 409 codes that mean another tab or device went further than this page. */
const MOVED_ON_CODES = new Set(['case_already_stored', 'judgement_already_given']);

export const saysStudyMovedOn = (err: unknown) => err instanceof ApiError && err.status === 409 && MOVED_ON_CODES.has(err.code ?? '');

/** Looks again at most this often when focus comes and goes quickly. */
const MIN_INTERVAL_MS = 5000;

export function useStudyMovedOn(input: {
  sessionId: string | null;
  phase: 'pre_experiment' | 'main_experiment';
  /** The page's own path: a destination elsewhere means another phase. */
  path: string;
  /** Answers of the phase this page knows of (held by the server or waiting in its outbox). */
  localCount: number;
  /** Whether the page is answering cases now (not loading, sending or finishing, which move on by themselves). */
  active: boolean;
}) {
  const { sessionId, phase, path, active } = input;
  const [movedOn, setMovedOn] = useState<MovedOn | null>(null);
  const local = useRef(input.localCount);
  local.current = input.localCount;
  const lastLook = useRef(0);

  const look = useCallback(
    async (told: boolean) => {
      if (!sessionId) return;
      if (!told && Date.now() - lastLook.current < MIN_INTERVAL_MS) return;
      lastLook.current = Date.now();
      try {
        const data = await fetchResume(sessionId);
        const destination = resumeDestination(data);
        const serverCount = phase === 'pre_experiment' ? data.preExperimentCount : data.mainExperimentCount;
        if (told || destination.path !== path || serverCount > local.current) setMovedOn({ destination, serverCount });
      } catch {
        // Not knowing where the participant is changes nothing here: the next look tries again.
      }
    },
    [sessionId, phase, path],
  );

  useEffect(() => {
    if (!active) return;
    const onVisible = () => {
      if (document.visibilityState === 'visible') void look(false);
    };
    const onFocus = () => void look(false);
    document.addEventListener('visibilitychange', onVisible);
    window.addEventListener('focus', onFocus);
    return () => {
      document.removeEventListener('visibilitychange', onVisible);
      window.removeEventListener('focus', onFocus);
    };
  }, [active, look]);

  return {
    movedOn,
    /** The server said a send came too late: look where the participant is, and say so whatever the counts. */
    told: useCallback(() => void look(true), [look]),
  };
}
