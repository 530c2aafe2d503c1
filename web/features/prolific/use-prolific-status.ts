import { useEffect, useState } from 'react';
import type { InferResponseType } from 'hono/client';
import { api, unwrap } from '../../lib/api';
import { logger } from '../../lib/error-log';

export type ProlificStatus = InferResponseType<(typeof api.api.experiments.sessions)[':sessionId']['prolific']['$get'], 200>;

/** The participant's Prolific links from the server, or null while loading, without an ID, or without Prolific. */
export function useProlificStatus(sessionId: string | null): ProlificStatus | null {
  const [status, setStatus] = useState<ProlificStatus | null>(null);
  useEffect(() => {
    if (!sessionId) return;
    let live = true;
    void (async () => {
      try {
        const result = await unwrap(await api.api.experiments.sessions[':sessionId'].prolific.$get({ param: { sessionId } }));
        if (live) setStatus(result);
      } catch (err) {
        // The study's own code stays on screen; only the Prolific shortcut is missing.
        logger.warn(`Prolific links unavailable: ${String(err)}`);
      }
    })();
    return () => {
      live = false;
    };
  }, [sessionId]);
  return status;
}
