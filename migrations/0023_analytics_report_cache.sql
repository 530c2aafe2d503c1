CREATE TABLE `analytics_reports` (
	`report_key` text PRIMARY KEY NOT NULL,
	`computing_since` text
);
--> statement-breakpoint
CREATE TABLE `data_revision` (
	`id` integer PRIMARY KEY NOT NULL,
	`revision` integer NOT NULL,
	`erasures` integer NOT NULL
);
--> statement-breakpoint
INSERT INTO `data_revision` (`id`, `revision`, `erasures`) VALUES (1, 0, 0);
-- Every write to what the reliance report reads moves the revision (worker/services/analytics/report-cache.ts).
--> statement-breakpoint
CREATE TRIGGER `data_revision_main_insert` AFTER INSERT ON `main_experiment_responses`
BEGIN UPDATE `data_revision` SET `revision` = `revision` + 1 WHERE `id` = 1; END;
--> statement-breakpoint
CREATE TRIGGER `data_revision_main_update` AFTER UPDATE ON `main_experiment_responses`
BEGIN UPDATE `data_revision` SET `revision` = `revision` + 1 WHERE `id` = 1; END;
--> statement-breakpoint
CREATE TRIGGER `data_revision_main_delete` AFTER DELETE ON `main_experiment_responses`
BEGIN UPDATE `data_revision` SET `revision` = `revision` + 1 WHERE `id` = 1; END;
--> statement-breakpoint
CREATE TRIGGER `data_revision_pre_insert` AFTER INSERT ON `pre_experiment_responses`
BEGIN UPDATE `data_revision` SET `revision` = `revision` + 1 WHERE `id` = 1; END;
--> statement-breakpoint
CREATE TRIGGER `data_revision_pre_update` AFTER UPDATE ON `pre_experiment_responses`
BEGIN UPDATE `data_revision` SET `revision` = `revision` + 1 WHERE `id` = 1; END;
--> statement-breakpoint
CREATE TRIGGER `data_revision_pre_delete` AFTER DELETE ON `pre_experiment_responses`
BEGIN UPDATE `data_revision` SET `revision` = `revision` + 1 WHERE `id` = 1; END;
--> statement-breakpoint
CREATE TRIGGER `data_revision_post_survey_insert` AFTER INSERT ON `post_surveys`
BEGIN UPDATE `data_revision` SET `revision` = `revision` + 1 WHERE `id` = 1; END;
--> statement-breakpoint
CREATE TRIGGER `data_revision_post_survey_update` AFTER UPDATE ON `post_surveys`
BEGIN UPDATE `data_revision` SET `revision` = `revision` + 1 WHERE `id` = 1; END;
--> statement-breakpoint
CREATE TRIGGER `data_revision_post_survey_delete` AFTER DELETE ON `post_surveys`
BEGIN UPDATE `data_revision` SET `revision` = `revision` + 1 WHERE `id` = 1; END;
--> statement-breakpoint
CREATE TRIGGER `data_revision_understanding_insert` AFTER INSERT ON `understanding_test_attempts`
BEGIN UPDATE `data_revision` SET `revision` = `revision` + 1 WHERE `id` = 1; END;
--> statement-breakpoint
CREATE TRIGGER `data_revision_understanding_update` AFTER UPDATE ON `understanding_test_attempts`
BEGIN UPDATE `data_revision` SET `revision` = `revision` + 1 WHERE `id` = 1; END;
--> statement-breakpoint
CREATE TRIGGER `data_revision_understanding_delete` AFTER DELETE ON `understanding_test_attempts`
BEGIN UPDATE `data_revision` SET `revision` = `revision` + 1 WHERE `id` = 1; END;
--> statement-breakpoint
CREATE TRIGGER `data_revision_participant_insert` AFTER INSERT ON `participants`
BEGIN UPDATE `data_revision` SET `revision` = `revision` + 1 WHERE `id` = 1; END;
--> statement-breakpoint
CREATE TRIGGER `data_revision_participant_update` AFTER UPDATE ON `participants`
BEGIN UPDATE `data_revision` SET `revision` = `revision` + 1 WHERE `id` = 1; END;
--> statement-breakpoint
CREATE TRIGGER `data_revision_participant_delete` AFTER DELETE ON `participants`
BEGIN UPDATE `data_revision` SET `revision` = `revision` + 1, `erasures` = `erasures` + 1 WHERE `id` = 1; END;
--> statement-breakpoint
CREATE TRIGGER `data_revision_session_insert` AFTER INSERT ON `sessions`
BEGIN UPDATE `data_revision` SET `revision` = `revision` + 1 WHERE `id` = 1; END;
--> statement-breakpoint
CREATE TRIGGER `data_revision_session_delete` AFTER DELETE ON `sessions`
BEGIN UPDATE `data_revision` SET `revision` = `revision` + 1 WHERE `id` = 1; END;
--> statement-breakpoint
CREATE TRIGGER `data_revision_session_update` AFTER UPDATE OF `participant_id`, `session_id`, `dataset_type`, `condition`, `main_start_bypass`, `resume_count` ON `sessions`
BEGIN UPDATE `data_revision` SET `revision` = `revision` + 1 WHERE `id` = 1; END;
