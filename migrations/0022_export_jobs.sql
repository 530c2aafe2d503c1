CREATE TABLE `export_jobs` (
	`id` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`format` text NOT NULL,
	`filter` text NOT NULL,
	`status` text NOT NULL,
	`object_key` text NOT NULL,
	`file_name` text NOT NULL,
	`cursor` text NOT NULL,
	`holds` text NOT NULL,
	`rows` integer DEFAULT 0 NOT NULL,
	`bytes` integer DEFAULT 0 NOT NULL,
	`steps` integer DEFAULT 0 NOT NULL,
	`longest_step_ms` integer DEFAULT 0 NOT NULL,
	`failed_attempts` integer DEFAULT 0 NOT NULL,
	`last_error` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`completed_at` text,
	CONSTRAINT "export_jobs_kind_ck" CHECK("export_jobs"."kind" in ('all_data', 'backup')),
	CONSTRAINT "export_jobs_status_ck" CHECK("export_jobs"."status" in ('running', 'completed', 'failed'))
);
--> statement-breakpoint
CREATE INDEX `export_jobs_created_idx` ON `export_jobs` (`created_at`);