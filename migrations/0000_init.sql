CREATE TABLE `admin_sessions` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`ip_address` text,
	`user_agent` text,
	`created_at` text NOT NULL,
	`expires_at` text NOT NULL,
	`revoked_at` text
);
--> statement-breakpoint
CREATE INDEX `admin_sessions_expires_idx` ON `admin_sessions` (`expires_at`);--> statement-breakpoint
CREATE TABLE `ai_models` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`dataset_type` text NOT NULL,
	`model_identifier` text NOT NULL,
	`status` text NOT NULL,
	`r2_key` text NOT NULL,
	`format_version` integer NOT NULL,
	`file_size_bytes` integer NOT NULL,
	`metrics` text NOT NULL,
	`dataset_info` text NOT NULL,
	`params` text NOT NULL,
	`training_time_seconds` real NOT NULL,
	`trained_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `ai_models_identifier_uq` ON `ai_models` (`model_identifier`);--> statement-breakpoint
CREATE INDEX `ai_models_dataset_status_idx` ON `ai_models` (`dataset_type`,`status`);--> statement-breakpoint
CREATE TABLE `audit_log` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`actor` text NOT NULL,
	`action` text NOT NULL,
	`target_type` text,
	`target_id` text,
	`details` text,
	`ip_address` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `audit_log_created_idx` ON `audit_log` (`created_at`);--> statement-breakpoint
CREATE INDEX `audit_log_action_idx` ON `audit_log` (`action`);--> statement-breakpoint
CREATE TABLE `case_set_items` (
	`session_id` text NOT NULL,
	`phase` text NOT NULL,
	`position` integer NOT NULL,
	`case_id` text NOT NULL,
	`alignment_alpha` real,
	`created_at` text NOT NULL,
	PRIMARY KEY(`session_id`, `phase`, `position`)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `case_set_items_case_uq` ON `case_set_items` (`session_id`,`phase`,`case_id`);--> statement-breakpoint
CREATE TABLE `cases` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`case_id` text NOT NULL,
	`dataset_type` text NOT NULL,
	`pool` text NOT NULL,
	`case_number` integer NOT NULL,
	`features` text NOT NULL,
	`ground_truth` integer NOT NULL,
	`source_row` integer,
	`created_at` text NOT NULL,
	CONSTRAINT "cases_ground_truth_ck" CHECK("cases"."ground_truth" in (0, 1))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `cases_case_id_uq` ON `cases` (`case_id`);--> statement-breakpoint
CREATE INDEX `cases_pool_idx` ON `cases` (`dataset_type`,`pool`,`case_number`);--> statement-breakpoint
CREATE TABLE `consent_records` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`participant_id` integer NOT NULL,
	`session_id` text NOT NULL,
	`study_version` text NOT NULL,
	`consent_items` text NOT NULL,
	`ip_address` text,
	`user_agent` text,
	`consented_at` text NOT NULL,
	FOREIGN KEY (`participant_id`) REFERENCES `participants`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `consent_session_version_uq` ON `consent_records` (`session_id`,`study_version`);--> statement-breakpoint
CREATE INDEX `consent_participant_idx` ON `consent_records` (`participant_id`);--> statement-breakpoint
CREATE INDEX `consent_consented_idx` ON `consent_records` (`consented_at`);--> statement-breakpoint
CREATE TABLE `dataset_assignments` (
	`session_id` text PRIMARY KEY NOT NULL,
	`dataset_type` text NOT NULL,
	`created_by` text NOT NULL,
	`is_confirmed` integer DEFAULT false NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `dataset_assignments_dataset_idx` ON `dataset_assignments` (`dataset_type`);--> statement-breakpoint
CREATE TABLE `main_experiment_responses` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`participant_id` integer NOT NULL,
	`session_id` text NOT NULL,
	`dataset_type` text NOT NULL,
	`case_id` text NOT NULL,
	`case_number` integer NOT NULL,
	`ground_truth` integer NOT NULL,
	`initial_prediction` integer,
	`initial_confidence` integer,
	`initial_response_time_ms` integer,
	`initial_reasoning` text,
	`final_prediction` integer,
	`final_confidence` integer,
	`final_response_time_ms` integer,
	`final_reasoning` text,
	`ai_prediction` integer,
	`alignment_alpha` real,
	`ai_model_prediction` integer,
	`user_model_prediction` integer,
	`ai_feature_importance` text,
	`user_feature_importance` text,
	`comprehensibility` integer,
	`transparency` integer,
	`satisfaction` integer,
	`trust` integer,
	`alignment` integer,
	`case_data` text,
	`explanation_viewing_time_ms` integer,
	`total_task_time_ms` integer,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`completed_at` text,
	FOREIGN KEY (`participant_id`) REFERENCES `participants`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "main_initial_prediction_ck" CHECK("main_experiment_responses"."initial_prediction" is null or "main_experiment_responses"."initial_prediction" in (0, 1)),
	CONSTRAINT "main_final_prediction_ck" CHECK("main_experiment_responses"."final_prediction" is null or "main_experiment_responses"."final_prediction" in (0, 1))
);
--> statement-breakpoint
CREATE UNIQUE INDEX `main_responses_session_case_uq` ON `main_experiment_responses` (`session_id`,`case_id`);--> statement-breakpoint
CREATE INDEX `main_responses_participant_idx` ON `main_experiment_responses` (`participant_id`);--> statement-breakpoint
CREATE INDEX `main_responses_created_idx` ON `main_experiment_responses` (`created_at`);--> statement-breakpoint
CREATE TABLE `participants` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`participant_code` text NOT NULL,
	`display_name` text,
	`origin` text DEFAULT 'participant' NOT NULL,
	`language` text DEFAULT 'ja' NOT NULL,
	`is_active` integer DEFAULT true NOT NULL,
	`prolific_pid` text,
	`prolific_study_id` text,
	`prolific_session_id` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `participants_code_uq` ON `participants` (`participant_code`);--> statement-breakpoint
CREATE INDEX `participants_created_idx` ON `participants` (`created_at`);--> statement-breakpoint
CREATE TABLE `post_surveys` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`participant_id` integer NOT NULL,
	`session_id` text NOT NULL,
	`demographics` text NOT NULL,
	`benevolent` text NOT NULL,
	`bigfive` text NOT NULL,
	`locus` text NOT NULL,
	`cognition` text NOT NULL,
	`experiment_rating` integer,
	`overall_feedback` text,
	`created_at` text NOT NULL,
	FOREIGN KEY (`participant_id`) REFERENCES `participants`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `post_surveys_session_uq` ON `post_surveys` (`session_id`);--> statement-breakpoint
CREATE INDEX `post_surveys_participant_idx` ON `post_surveys` (`participant_id`);--> statement-breakpoint
CREATE TABLE `pre_experiment_responses` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`participant_id` integer NOT NULL,
	`session_id` text NOT NULL,
	`dataset_type` text NOT NULL,
	`case_id` text NOT NULL,
	`case_number` integer NOT NULL,
	`prediction` integer NOT NULL,
	`confidence` integer NOT NULL,
	`response_time_ms` integer NOT NULL,
	`reasoning` text,
	`ground_truth` integer NOT NULL,
	`case_data` text NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`participant_id`) REFERENCES `participants`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "pre_prediction_ck" CHECK("pre_experiment_responses"."prediction" in (0, 1)),
	CONSTRAINT "pre_confidence_ck" CHECK("pre_experiment_responses"."confidence" between 1 and 5)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `pre_responses_session_case_uq` ON `pre_experiment_responses` (`session_id`,`case_id`);--> statement-breakpoint
CREATE INDEX `pre_responses_participant_idx` ON `pre_experiment_responses` (`participant_id`);--> statement-breakpoint
CREATE INDEX `pre_responses_created_idx` ON `pre_experiment_responses` (`created_at`);--> statement-breakpoint
CREATE TABLE `rate_limit_buckets` (
	`bucket_key` text NOT NULL,
	`window_start` integer NOT NULL,
	`count` integer NOT NULL,
	PRIMARY KEY(`bucket_key`, `window_start`)
);
--> statement-breakpoint
CREATE INDEX `rate_limit_window_idx` ON `rate_limit_buckets` (`window_start`);--> statement-breakpoint
CREATE TABLE `sessions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`session_id` text NOT NULL,
	`participant_id` integer NOT NULL,
	`dataset_type` text NOT NULL,
	`current_phase` text DEFAULT 'consent' NOT NULL,
	`language` text DEFAULT 'ja' NOT NULL,
	`consented_at` text,
	`pre_completed_at` text,
	`main_started_at` text,
	`main_completed_at` text,
	`post_survey_completed_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`participant_id`) REFERENCES `participants`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `sessions_session_id_uq` ON `sessions` (`session_id`);--> statement-breakpoint
CREATE INDEX `sessions_participant_idx` ON `sessions` (`participant_id`);--> statement-breakpoint
CREATE TABLE `user_models` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`participant_id` integer NOT NULL,
	`session_id` text NOT NULL,
	`dataset_type` text NOT NULL,
	`status` text NOT NULL,
	`r2_key` text,
	`model_identifier` text NOT NULL,
	`format_version` integer,
	`training_samples` integer NOT NULL,
	`num_trees` integer,
	`num_leaves` integer,
	`max_depth` integer,
	`learning_rate` real,
	`data_size_category` text,
	`train_accuracy` real,
	`training_duration_ms` real,
	`file_size_bytes` integer,
	`failure_reason` text,
	`trained_at` text NOT NULL,
	FOREIGN KEY (`participant_id`) REFERENCES `participants`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `user_models_session_uq` ON `user_models` (`session_id`);--> statement-breakpoint
CREATE INDEX `user_models_participant_idx` ON `user_models` (`participant_id`);--> statement-breakpoint
CREATE INDEX `user_models_dataset_idx` ON `user_models` (`dataset_type`);