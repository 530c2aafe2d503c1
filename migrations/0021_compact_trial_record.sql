PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_pre_experiment_responses` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`participant_id` integer NOT NULL,
	`session_id` text NOT NULL,
	`dataset_type` text NOT NULL,
	`case_id` text NOT NULL,
	`case_number` integer NOT NULL,
	`prediction` integer NOT NULL,
	`confidence` integer NOT NULL,
	`response_time_ms` integer NOT NULL,
	`reasoning` text,
	`ground_truth` integer NOT NULL,
	`case_data` text,
	`created_at` text NOT NULL,
	FOREIGN KEY (`participant_id`) REFERENCES `participants`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "pre_prediction_ck" CHECK("__new_pre_experiment_responses"."prediction" in (0, 1)),
	CONSTRAINT "pre_confidence_ck" CHECK("__new_pre_experiment_responses"."confidence" between 1 and 5)
);
--> statement-breakpoint
INSERT INTO `__new_pre_experiment_responses`("id", "participant_id", "session_id", "dataset_type", "case_id", "case_number", "prediction", "confidence", "response_time_ms", "reasoning", "ground_truth", "case_data", "created_at") SELECT "id", "participant_id", "session_id", "dataset_type", "case_id", "case_number", "prediction", "confidence", "response_time_ms", "reasoning", "ground_truth", "case_data", "created_at" FROM `pre_experiment_responses`;--> statement-breakpoint
DROP TABLE `pre_experiment_responses`;--> statement-breakpoint
ALTER TABLE `__new_pre_experiment_responses` RENAME TO `pre_experiment_responses`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE UNIQUE INDEX `pre_responses_session_case_uq` ON `pre_experiment_responses` (`session_id`,`case_id`);--> statement-breakpoint
CREATE INDEX `pre_responses_participant_idx` ON `pre_experiment_responses` (`participant_id`);--> statement-breakpoint
CREATE INDEX `pre_responses_created_idx` ON `pre_experiment_responses` (`created_at`);--> statement-breakpoint
-- Issue #45: a trial keeps what it alone knows. The case shown is `case_id` in `cases` (never
-- rewritten), so an answer's copy of it goes where it equals that row; a trial's bars are its
-- serve's (`served_explanation_id`), so its copies go where they equal the serve's. A copy that
-- differs (an answer stored before either was recorded by the server) stays.
UPDATE `pre_experiment_responses` SET `case_data` = NULL
  WHERE `case_data` = (SELECT c.`features` FROM `cases` c WHERE c.`case_id` = `pre_experiment_responses`.`case_id`);--> statement-breakpoint
UPDATE `main_experiment_responses` SET `case_data` = NULL
  WHERE `case_data` = (SELECT c.`features` FROM `cases` c WHERE c.`case_id` = `main_experiment_responses`.`case_id`);--> statement-breakpoint
UPDATE `main_experiment_responses` SET `ai_feature_importance` = NULL, `user_feature_importance` = NULL, `shown_feature_importance` = NULL
  WHERE `served_explanation_id` IS NOT NULL AND EXISTS (
    SELECT 1 FROM `served_explanations` s WHERE s.`id` = `main_experiment_responses`.`served_explanation_id`
      AND s.`ai_feature_importance` = `main_experiment_responses`.`ai_feature_importance`
      AND s.`user_feature_importance` = `main_experiment_responses`.`user_feature_importance`
      AND s.`shown_feature_importance` = `main_experiment_responses`.`shown_feature_importance`);--> statement-breakpoint
-- A serve's bars as worker/db/feature-bars.ts stores them, every number's text as it was (`->`
-- keeps it; SQLite's own rendering of a real would not): the AI's and the participant model's as
-- [feature, raw_shap] (their shares are those raw values normalised, as they were made), the bars
-- on screen as [feature, importance, raw_shap].
UPDATE `served_explanations` SET `ai_feature_importance` = (
    SELECT json_group_array(json_array(b.value -> '$.feature', b.value -> '$.raw_shap') ORDER BY b.key) FROM json_each(`served_explanations`.`ai_feature_importance`) b)
  WHERE json_type(`ai_feature_importance`, '$[0]') = 'object';--> statement-breakpoint
UPDATE `served_explanations` SET `user_feature_importance` = (
    SELECT json_group_array(json_array(b.value -> '$.feature', b.value -> '$.raw_shap') ORDER BY b.key) FROM json_each(`served_explanations`.`user_feature_importance`) b)
  WHERE json_type(`user_feature_importance`, '$[0]') = 'object';--> statement-breakpoint
UPDATE `served_explanations` SET `shown_feature_importance` = (
    SELECT json_group_array(json_array(b.value -> '$.feature', b.value -> '$.importance', b.value -> '$.raw_shap') ORDER BY b.key) FROM json_each(`served_explanations`.`shown_feature_importance`) b)
  WHERE json_type(`shown_feature_importance`, '$[0]') = 'object';
--> statement-breakpoint
-- The rebuild of pre_experiment_responses above dropped its triggers (migration 0008): the same again.
CREATE TRIGGER `participant_signals_invalidate_insert` AFTER INSERT ON `pre_experiment_responses`
BEGIN DELETE FROM `participant_signals` WHERE `participant_id` = NEW.`participant_id`; END;
--> statement-breakpoint
CREATE TRIGGER `participant_signals_invalidate_update` AFTER UPDATE ON `pre_experiment_responses`
BEGIN DELETE FROM `participant_signals` WHERE `participant_id` IN (OLD.`participant_id`, NEW.`participant_id`); END;
--> statement-breakpoint
CREATE TRIGGER `participant_signals_invalidate_delete` AFTER DELETE ON `pre_experiment_responses`
BEGIN DELETE FROM `participant_signals` WHERE `participant_id` = OLD.`participant_id`; END;
