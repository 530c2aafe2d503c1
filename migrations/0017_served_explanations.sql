CREATE TABLE `served_explanations` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`session_id` text NOT NULL,
	`case_id` text NOT NULL,
	`kind` text NOT NULL,
	`ai_only_reason` text,
	`ai_model_identifier` text NOT NULL,
	`user_model_identifier` text,
	`alignment_alpha` real,
	`ai_prediction` integer NOT NULL,
	`ai_probability` real NOT NULL,
	`ai_base_probability` real NOT NULL,
	`user_model_prediction` integer,
	`user_model_probability` real,
	`ai_feature_importance` text NOT NULL,
	`user_feature_importance` text NOT NULL,
	`shown_feature_importance` text NOT NULL,
	`serve_key` text NOT NULL,
	`serve_count` integer DEFAULT 1 NOT NULL,
	`first_served_at` text NOT NULL,
	`last_served_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `served_explanations_serve_uq` ON `served_explanations` (`session_id`,`case_id`,`serve_key`);--> statement-breakpoint
ALTER TABLE `main_experiment_responses` ADD `served_explanation_id` integer;--> statement-breakpoint
ALTER TABLE `main_experiment_responses` ADD `ai_only_reason` text;