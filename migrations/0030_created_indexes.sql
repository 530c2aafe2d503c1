DROP INDEX `main_responses_created_idx`;--> statement-breakpoint
DROP INDEX `pre_responses_created_idx`;--> statement-breakpoint
CREATE INDEX `pre_responses_created_idx` ON `pre_experiment_responses` (julianday("created_at"));