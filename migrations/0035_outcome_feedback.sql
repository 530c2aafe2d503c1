ALTER TABLE `main_experiment_responses` ADD `feedback_served_at` text;--> statement-breakpoint
ALTER TABLE `main_experiment_responses` ADD `feedback_viewing_time_ms` integer;