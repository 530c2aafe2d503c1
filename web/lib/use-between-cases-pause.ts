import { useCallback, useEffect, useRef } from 'react';
import { studyConfig } from '../../worker/schemas/study-config';

/**
 * The spec's pause between cases (800 ms), timed from the answer itself rather than from a later
 * render, and cancelled if the screen goes away. Returns a function that runs `then` after it.
 */
export function useBetweenCasesPause() {
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  return useCallback((then: () => void) => {
    clearTimeout(timer.current);
    timer.current = setTimeout(then, studyConfig.timingsMs.betweenCases);
  }, []);
}
