ALTER TABLE `main_experiment_responses` ADD `shown_leans_with_ai` integer;--> statement-breakpoint
-- Cases stored before the column existed: the same rule from the stored bars and AI prediction.
UPDATE `main_experiment_responses` SET `shown_leans_with_ai` = (
	SELECT CASE WHEN count(*) = 0 THEN NULL
	            WHEN `main_experiment_responses`.`ai_prediction` = 1 THEN sum(json_extract(`value`, '$.importance')) > 0
	            ELSE sum(json_extract(`value`, '$.importance')) < 0 END
	FROM json_each(`main_experiment_responses`.`shown_feature_importance`)
) WHERE `shown_feature_importance` IS NOT NULL AND `ai_prediction` IS NOT NULL;
