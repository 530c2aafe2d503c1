-- Issue #45: the answers' and trials' time indexes hold the time as a Julian day number (8 bytes,
-- where the stored text takes 24). Julian days order the stored times (ISO-8601 to the
-- millisecond) exactly as their text does, so the dashboard counts the answers since a moment and
-- lists the answers and trials newest first through them, as it did through the text. A stored
-- time must be a timestamp: SQLite refuses to index julianday('now'), the moment of reading.
DROP INDEX `main_responses_created_idx`;--> statement-breakpoint
CREATE INDEX `main_responses_created_idx` ON `main_experiment_responses` (julianday("created_at"));--> statement-breakpoint
DROP INDEX `pre_responses_created_idx`;--> statement-breakpoint
CREATE INDEX `pre_responses_created_idx` ON `pre_experiment_responses` (julianday("created_at"));