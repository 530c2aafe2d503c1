ALTER TABLE `main_experiment_responses` ADD `time_limit_ms` integer;--> statement-breakpoint
ALTER TABLE `main_experiment_responses` ADD `initial_timed_out` integer;--> statement-breakpoint
ALTER TABLE `main_experiment_responses` ADD `final_timed_out` integer;--> statement-breakpoint
ALTER TABLE `main_experiment_responses` ADD `initial_step_ms` integer;--> statement-breakpoint
ALTER TABLE `main_experiment_responses` ADD `final_step_ms` integer;--> statement-breakpoint
ALTER TABLE `main_trial_progress` ADD `opened_at` text;--> statement-breakpoint
ALTER TABLE `main_trial_progress` ADD `initial_timed_out` integer;--> statement-breakpoint
ALTER TABLE `main_trial_progress` ADD `final_timed_out` integer;