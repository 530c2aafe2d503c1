-- Issue #63: a running export job names its runner and holds a lease its steps renew, so a job
-- whose runner is gone (a killed server, a lost Workflow instance) can be resumed as soon as the
-- lease runs out, not twenty minutes after its last step. Jobs from before keep the old rule.
ALTER TABLE `export_jobs` ADD `runner` text;--> statement-breakpoint
ALTER TABLE `export_jobs` ADD `lease_until` text;