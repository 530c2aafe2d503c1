CREATE TABLE `participant_signals` (
	`participant_id` integer PRIMARY KEY NOT NULL,
	`pre_median_response_ms` real,
	`pre_longest_run` integer,
	`computed_at` text NOT NULL
);
--> statement-breakpoint
-- A participant's cached signals go whenever one of their pre-experiment answers is written, changed or deleted.
CREATE TRIGGER `participant_signals_invalidate_insert` AFTER INSERT ON `pre_experiment_responses`
BEGIN DELETE FROM `participant_signals` WHERE `participant_id` = NEW.`participant_id`; END;
--> statement-breakpoint
CREATE TRIGGER `participant_signals_invalidate_update` AFTER UPDATE ON `pre_experiment_responses`
BEGIN DELETE FROM `participant_signals` WHERE `participant_id` IN (OLD.`participant_id`, NEW.`participant_id`); END;
--> statement-breakpoint
CREATE TRIGGER `participant_signals_invalidate_delete` AFTER DELETE ON `pre_experiment_responses`
BEGIN DELETE FROM `participant_signals` WHERE `participant_id` = OLD.`participant_id`; END;
