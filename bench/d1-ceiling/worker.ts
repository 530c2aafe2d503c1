/**
 * The floor under the answer path: a Worker that does nothing but parse a JSON answer and insert
 * it as one row into local D1 (no validation, no lookups, no limits). `npm run bench:load` runs it
 * beside the platform's Worker and reports the platform's saturated answer throughput as a
 * share of this one's.
 */
type Env = { DB: D1Database };
type Answer = { session_id: string; case_id: string; prediction: number; confidence: number; response_time_ms: number };

let tableReady: Promise<unknown> | null = null;

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    tableReady ??= env.DB.prepare(
      `create table if not exists answers (id integer primary key autoincrement, session_id text not null, case_id text not null,
         prediction integer not null, confidence integer not null, response_time_ms integer not null, created_at text not null)`,
    ).run();
    await tableReady;
    if (request.method !== 'POST') return Response.json({ ok: true });
    const a = await request.json<Answer>();
    await env.DB.prepare('insert into answers (session_id, case_id, prediction, confidence, response_time_ms, created_at) values (?, ?, ?, ?, ?, ?)')
      .bind(a.session_id, a.case_id, a.prediction, a.confidence, a.response_time_ms, new Date().toISOString())
      .run();
    return Response.json({ success: true }, { status: 201 });
  },
};
