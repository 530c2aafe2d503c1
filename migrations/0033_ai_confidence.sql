ALTER TABLE `main_experiment_responses` ADD `ai_confidence_shown` integer;--> statement-breakpoint
ALTER TABLE `served_explanations` ADD `ai_confidence_shown` integer DEFAULT false NOT NULL;