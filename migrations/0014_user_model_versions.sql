CREATE TABLE `user_model_versions` (
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
	`superseded_at` text NOT NULL,
	FOREIGN KEY (`participant_id`) REFERENCES `participants`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `user_model_versions_session_idx` ON `user_model_versions` (`session_id`);--> statement-breakpoint
CREATE INDEX `user_model_versions_participant_idx` ON `user_model_versions` (`participant_id`);