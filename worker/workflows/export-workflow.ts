/**
 * Runs an export job's steps (worker/services/exports/stepwise.ts) as a Cloudflare Workflow: each
 * step is one `step.do`, so each runs in its own invocation with its own CPU budget, and a failed
 * step is tried again (from the cursor the job last committed) with a growing pause. When every try
 * of a step has failed, the job is marked failed with the error; the dashboard can resume it from
 * that same cursor.
 */
import { WorkflowEntrypoint, type WorkflowEvent, type WorkflowStep, type WorkflowStepConfig } from 'cloudflare:workers';
import { createDb } from '../db/client';
import { keepRelianceReports } from '../services/analytics/report-cache';
import { auditInsert } from '../db/queries/audit-log';
import { jobParts } from '../services/exports/export';
import { exportJobById, ExportJobSuperseded, noteFailedStep, runExportStep } from '../services/exports/stepwise';

export type ExportWorkflowParams = { jobId: string };

/** Tries of one step before the job is marked failed: about 10 minutes of pauses in all. */
export const EXPORT_STEP_CONFIG = {
  retries: { limit: 5, delay: '20 seconds', backoff: 'exponential' },
  timeout: '5 minutes',
} satisfies WorkflowStepConfig;

/** A step's answer to the Workflow: small, as each is kept with the instance. `superseded`: a resumed job's newer instance runs it now. */
type StepSummary = { status: 'running' | 'completed' | 'failed' | 'superseded'; rows: number; steps: number };

export class ExportWorkflow extends WorkflowEntrypoint<Env, ExportWorkflowParams> {
  override async run(event: WorkflowEvent<ExportWorkflowParams>, step: WorkflowStep): Promise<StepSummary> {
    const { jobId } = event.payload;
    const db = createDb(this.env.DB);
    keepRelianceReports({ db, bucket: this.env.EXPORTS, version: this.env.CF_VERSION_METADATA.id, waitUntil: (work) => this.ctx.waitUntil(work) });
    for (let n = 1; ; n++) {
      let summary: StepSummary;
      try {
        summary = await step.do(`export step ${n}`, EXPORT_STEP_CONFIG, async () => {
          const job = await exportJobById(db, jobId);
          if (!job) throw new Error(`No export job ${jobId}`);
          try {
            // The instance is the runner: its steps hold the job's lease.
            const done = await runExportStep(db, this.env.EXPORTS, jobId, jobParts(db, job), event.instanceId);
            return { status: done.status, rows: done.rows, steps: done.steps };
          } catch (err) {
            // Resumed elsewhere meanwhile: this instance stands down, nothing failed.
            if (err instanceof ExportJobSuperseded) return { status: 'superseded' as const, rows: job.rows, steps: job.steps };
            await noteFailedStep(db, jobId, err, false);
            throw err;
          }
        });
      } catch (err) {
        await step.do('mark the job failed', () => noteFailedStep(db, jobId, err, true));
        throw err;
      }
      if (summary.status === 'superseded') return summary;
      if (summary.status !== 'running') {
        await step.do('note the export', async () => {
          const job = await exportJobById(db, jobId);
          if (job?.kind === 'backup' && job.status === 'completed') {
            await auditInsert(db, { actor: 'system', action: 'scheduled_backup', targetType: 'export', targetId: job.objectKey, details: { bytes: job.bytes, rows: job.rows, steps: job.steps }, ipAddress: null }, new Date());
          }
        });
        return summary;
      }
    }
  }
}
