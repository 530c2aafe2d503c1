/**
 * Whether this visitor may use what `?debug=true` / `?tutorial=true` open (skipping the
 * pre-experiment, choosing the session by URL, the error test page). The Worker decides: everyone
 * in development, administrators only in production; the SPA only asks when a page was opened
 * with such a flag, so an ordinary participant's pages make no extra call.
 */
import { useEffect, useState } from 'react';
import { api, unwrap } from './api';

export type DebugTools = 'off' | 'pending' | 'on';

export function useDebugTools(requested: boolean): DebugTools {
  const [answer, setAnswer] = useState<boolean | null>(null);
  useEffect(() => {
    if (!requested) return;
    let live = true;
    void (async () => {
      try {
        const body = await unwrap(await api.api.status.environment.$get());
        if (live) setAnswer(body.debug_tools);
      } catch {
        // The server could not say yes: the page runs as for any participant.
        if (live) setAnswer(false);
      }
    })();
    return () => {
      live = false;
    };
  }, [requested]);
  if (!requested) return 'off';
  return answer === null ? 'pending' : answer ? 'on' : 'off';
}
