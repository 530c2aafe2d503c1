/**
 * bench:export's Worker: the platform's own, plus one route it does not have, which reads the
 * pre-experiment table page by page with the export's own page function and writes nothing. Its
 * time is D1's share of the export (the query, the rows crossing into the isolate, the rows
 * made), measured in the same run as the export beside it: a floor no export through D1 can beat.
 */
import worker from '../../worker/index';
import { createDb } from '../../worker/db/client';
import { preExperimentTable } from '../../worker/services/exports/tables';
import { D1_READ_PATH } from './path';

export default {
  async fetch(request, env, ctx) {
    if (new URL(request.url).pathname !== D1_READ_PATH) return worker.fetch(request, env, ctx);
    let rows = 0;
    for await (const page of preExperimentTable.pages(createDb(env.DB), {})) rows += page.length;
    return Response.json({ rows });
  },
  scheduled: worker.scheduled,
} satisfies ExportedHandler<Env>;

export { ExportWorkflow } from '../../worker/index';
