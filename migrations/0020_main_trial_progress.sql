CREATE TABLE `main_trial_progress` (
	`session_id` text NOT NULL,
	`case_id` text NOT NULL,
	`initial_prediction` integer,
	`initial_confidence` integer,
	`initial_response_time_ms` integer,
	`initial_reasoning` text,
	`initial_kept_at` text,
	`explanation_viewing_time_ms` integer,
	`explanation_viewed_at` text,
	`final_prediction` integer,
	`final_confidence` integer,
	`final_response_time_ms` integer,
	`final_reasoning` text,
	`final_kept_at` text,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`session_id`, `case_id`)
);
