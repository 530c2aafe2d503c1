ALTER TABLE `main_experiment_responses` ADD `advice_requested` integer;--> statement-breakpoint
ALTER TABLE `main_experiment_responses` ADD `advice_delay_ms` integer;