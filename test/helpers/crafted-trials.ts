/**
 * Participants whose main experiment holds exactly the trials a test writes down (inserted
 * directly, so every figure of the measures is known by hand).
 */
import { env } from 'cloudflare:workers';
import { newParticipantId } from './study-factories';

/** A crafted trial: initial (and its confidence), the AI, final (and its confidence), truth; what was shown; the AI's probability and whether the panel showed it. */
export type CraftedTrial = { i: number | null; ci?: number | null; a: number | null; f: number; cf?: number; y: number; kind?: string | null; alpha?: number | null; p?: number; shown?: boolean };

/** A person (8-character ID) in `condition` whose main experiment holds exactly these trials. */
export async function craftedParticipant(condition: string, trials: CraftedTrial[]) {
  const code = newParticipantId();
  const now = new Date().toISOString();
  const p = await env.DB.prepare("insert into participants (participant_code, origin, language, is_active, created_at, updated_at) values (?, 'participant', 'en', 1, ?, ?) returning id")
    .bind(code, now, now)
    .first<{ id: number }>();
  await env.DB.prepare(
    "insert into sessions (session_id, participant_id, dataset_type, current_phase, language, consented_at, pre_completed_at, main_started_at, condition, created_at, updated_at) values (?, ?, 'compas', 'main_experiment', 'en', ?, ?, ?, ?, ?, ?)",
  )
    .bind(code, p!.id, now, now, now, condition, now, now)
    .run();
  await env.DB.batch(
    trials.map((t, k) =>
      env.DB.prepare(
        `insert into main_experiment_responses (participant_id, session_id, dataset_type, case_id, case_number, ground_truth, initial_prediction, initial_confidence,
           ai_prediction, final_prediction, final_confidence, explanation_kind, alignment_alpha, ai_probability, ai_baseline_shown, created_at, updated_at, completed_at)
         values (?, ?, 'compas', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).bind(
        p!.id,
        code,
        `craft_${code}_${k}`,
        k + 1,
        t.y,
        t.i,
        t.i === null ? null : (t.ci ?? 3),
        t.a,
        t.f,
        t.cf ?? 3,
        t.kind === undefined ? (t.a === null ? null : 'human_aligned') : t.kind,
        t.alpha === undefined ? (t.a === null ? null : 0.5) : t.alpha,
        t.p ?? null,
        t.shown === undefined ? null : t.shown ? 1 : 0,
        now,
        now,
        now,
      ),
    ),
  );
  return { code, id: p!.id };
}

