CREATE TABLE `study_configurations` (
	`version` text PRIMARY KEY NOT NULL,
	`study_version` text NOT NULL,
	`config` text NOT NULL,
	`recorded_at` text NOT NULL
);
--> statement-breakpoint
ALTER TABLE `sessions` ADD `study_config_version` text;--> statement-breakpoint
ALTER TABLE `sessions` ADD `screened_out_at` text;