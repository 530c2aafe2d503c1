/**
 * Whether a participant ID has a participation on the server, and in what state (the entry page
 * asks for the one this browser holds; the resume panel for the one typed in).
 */
import type { InferResponseType } from 'hono/client';
import { NOTHING_FOUND } from '../../worker/schemas/nothing-found';
import { api, unwrap } from './api';

export type ExistingCheck = InferResponseType<typeof api.api.experiments['check-existing']['$post'], 200>;

/** The spec treats a failed check as "nothing found". */
export async function checkExisting(participantId: string, signal?: AbortSignal): Promise<ExistingCheck> {
  try {
    return await unwrap(await api.api.experiments['check-existing'].$post({ json: { participant_name: participantId } }, { init: { signal } }));
  } catch (err) {
    if (signal?.aborted) throw err;
    return NOTHING_FOUND;
  }
}
