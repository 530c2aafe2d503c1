-- Issue #45: a serve's packed bars named their features in full, the same list in every serve of
-- a model. Each list is now kept once, in `feature_lists`, and a serve's `bars` holds its id in
-- `f`; serves are read with their list put back, so every export is the same bytes. Serves stored
-- before are converted here; their lists are entered as SQLite writes them, as the Worker enters
-- a new one. A serve whose bars are not packed (no list) is left as it is.
CREATE TABLE `feature_lists` (
	`id` integer PRIMARY KEY NOT NULL,
	`names` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `feature_lists_names_uq` ON `feature_lists` (`names`);--> statement-breakpoint
INSERT OR IGNORE INTO `feature_lists` (`names`) SELECT json_extract(`bars`, '$.f') FROM `served_explanations` WHERE json_type(`bars`, '$.f') = 'array' ORDER BY `id`;--> statement-breakpoint
UPDATE `served_explanations` SET `bars` = json_set(`bars`, '$.f', (SELECT `id` FROM `feature_lists` WHERE `names` = json_extract(`served_explanations`.`bars`, '$.f'))) WHERE json_type(`bars`, '$.f') = 'array';
