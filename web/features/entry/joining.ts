/**
 * Joining, the entry page's two actions: starting a new participation (bind the ID to a dataset,
 * forced by URL or selection, else the server's balanced assignment, and open the session; a clash
 * with an existing ID or mapping draws a new ID and tries again, so two people never share one), or
 * continuing the one this browser holds. Fetched when the participant is about to click, not with
 * the first page.
 */
import type { DatasetType, Language } from '../../../worker/schemas/study-config';
import { api, ApiError, NetworkError, unwrap } from '../../lib/api';
import { prolificParams } from '../../lib/prolific';
import { fetchResume, resumeDestination, type ResumeDestination } from '../../lib/resume';
import { generateParticipantId, newRequestId } from '../../lib/session-id';
import { SetupError, StudyUnavailableError, type ForcedDataset, type Unavailability } from './start-participation';

const REFUSALS: Record<string, Unavailability> = { study_paused: 'paused', study_closed: 'closed', study_full: 'full' };
const unavailable = (err: unknown) => (err instanceof ApiError && err.code && REFUSALS[err.code] ? new StudyUnavailableError(REFUSALS[err.code]!) : null);

const MAX_ATTEMPTS = 3;

const isConflict = (err: unknown) => err instanceof ApiError && err.status === 409;

async function assignDataset(id: string, forced: ForcedDataset | null): Promise<DatasetType> {
  if (forced) {
    const created_by = forced.source === 'url' ? 'user_query_parameter' : 'system';
    const res = await unwrap(
      await api.api.experiments['dataset-assignment'].explicit.$post({ json: { session_id: id, dataset_type: forced.datasetType, created_by } }),
    );
    return res.dataset_type;
  }
  const res = await unwrap(await api.api.experiments['dataset-assignment'].balanced.$post({ json: { session_id: id } }));
  return res.dataset_type;
}

export async function startParticipation(input: {
  participantId: string;
  forced: ForcedDataset | null;
  language: Language;
}): Promise<{ sessionId: string; userId: number; datasetType: DatasetType }> {
  let id = input.participantId;
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++, id = generateParticipantId()) {
    let datasetType: DatasetType;
    try {
      datasetType = await assignDataset(id, input.forced);
    } catch (err) {
      const refused = unavailable(err);
      if (refused) throw refused;
      if (isConflict(err)) continue;
      throw new SetupError(err instanceof NetworkError ? 'network' : 'dataset_type', err);
    }
    try {
      const session = await unwrap(
        await api.api.experiments.sessions.$post({
          // The retrying fetch resends this very body, so a resend after a lost answer carries the same request ID.
          json: { participant_name: id, dataset_type: datasetType, language: input.language, new_participant: true, request_id: newRequestId(), ...prolificParams() },
        }),
      );
      return { sessionId: session.session_id, userId: session.user_id, datasetType: session.dataset_type };
    } catch (err) {
      const refused = unavailable(err);
      if (refused) throw refused;
      if (isConflict(err)) continue;
      throw new SetupError(err instanceof NetworkError ? 'network' : 'session', err);
    }
  }
  throw new SetupError('session', new Error('no free participant ID after several attempts'));
}

/**
 * Where a participation in progress in this browser continues: the consent form while the
 * participant has not consented (same ID, same dataset), else the resume destination.
 */
export async function continueParticipation(sessionId: string): Promise<ResumeDestination> {
  const info = await unwrap(await api.api.experiments.sessions[':sessionId'].$get({ param: { sessionId } }));
  if (info.current_phase === 'consent') {
    return { path: '/experiment/consent', state: { datasetType: info.dataset_type, participantName: sessionId, sessionId } };
  }
  return resumeDestination(await fetchResume(sessionId));
}
