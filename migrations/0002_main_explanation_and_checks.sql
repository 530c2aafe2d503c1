PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_main_experiment_responses` (
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
	`explanation_kind` text,
	`ai_model_identifier` text,
	`user_model_identifier` text,
	`ai_probability` real,
	`user_model_probability` real,
	`shown_feature_importance` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`completed_at` text,
	FOREIGN KEY (`participant_id`) REFERENCES `participants`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "main_initial_prediction_ck" CHECK("__new_main_experiment_responses"."initial_prediction" is null or "__new_main_experiment_responses"."initial_prediction" in (0, 1)),
	CONSTRAINT "main_final_prediction_ck" CHECK("__new_main_experiment_responses"."final_prediction" is null or "__new_main_experiment_responses"."final_prediction" in (0, 1)),
	CONSTRAINT "main_initial_confidence_ck" CHECK("__new_main_experiment_responses"."initial_confidence" is null or "__new_main_experiment_responses"."initial_confidence" between 1 and 5),
	CONSTRAINT "main_final_confidence_ck" CHECK("__new_main_experiment_responses"."final_confidence" is null or "__new_main_experiment_responses"."final_confidence" between 1 and 5),
	CONSTRAINT "main_ratings_ck" CHECK(coalesce("__new_main_experiment_responses"."comprehensibility", 1) between 1 and 5 and coalesce("__new_main_experiment_responses"."transparency", 1) between 1 and 5 and coalesce("__new_main_experiment_responses"."satisfaction", 1) between 1 and 5 and coalesce("__new_main_experiment_responses"."trust", 1) between 1 and 5 and coalesce("__new_main_experiment_responses"."alignment", 1) between 1 and 5),
	CONSTRAINT "main_alpha_ck" CHECK("__new_main_experiment_responses"."alignment_alpha" is null or "__new_main_experiment_responses"."alignment_alpha" between 0 and 1)
);
--> statement-breakpoint
INSERT INTO `__new_main_experiment_responses`("id", "participant_id", "session_id", "dataset_type", "case_id", "case_number", "ground_truth", "initial_prediction", "initial_confidence", "initial_response_time_ms", "initial_reasoning", "final_prediction", "final_confidence", "final_response_time_ms", "final_reasoning", "ai_prediction", "alignment_alpha", "ai_model_prediction", "user_model_prediction", "ai_feature_importance", "user_feature_importance", "comprehensibility", "transparency", "satisfaction", "trust", "alignment", "case_data", "explanation_viewing_time_ms", "total_task_time_ms", "created_at", "updated_at", "completed_at") SELECT "id", "participant_id", "session_id", "dataset_type", "case_id", "case_number", "ground_truth", "initial_prediction", "initial_confidence", "initial_response_time_ms", "initial_reasoning", "final_prediction", "final_confidence", "final_response_time_ms", "final_reasoning", "ai_prediction", "alignment_alpha", "ai_model_prediction", "user_model_prediction", "ai_feature_importance", "user_feature_importance", "comprehensibility", "transparency", "satisfaction", "trust", "alignment", "case_data", "explanation_viewing_time_ms", "total_task_time_ms", "created_at", "updated_at", "completed_at" FROM `main_experiment_responses`;--> statement-breakpoint
DROP TABLE `main_experiment_responses`;--> statement-breakpoint
ALTER TABLE `__new_main_experiment_responses` RENAME TO `main_experiment_responses`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE UNIQUE INDEX `main_responses_session_case_uq` ON `main_experiment_responses` (`session_id`,`case_id`);--> statement-breakpoint
CREATE INDEX `main_responses_participant_idx` ON `main_experiment_responses` (`participant_id`);--> statement-breakpoint
CREATE INDEX `main_responses_created_idx` ON `main_experiment_responses` (`created_at`);