ALTER TABLE `served_explanations` ADD `stated_accuracy` real;--> statement-breakpoint
ALTER TABLE `sessions` ADD `debrief_served_at` text;--> statement-breakpoint
-- Every serve before this stated the pinned model's measured test accuracy (the study's fixed figure for its dataset where the model had none, part 1 §8).
UPDATE `served_explanations` SET `stated_accuracy` = (SELECT coalesce(json_extract(m.`metrics`, '$.test_accuracy'), CASE m.`dataset_type` WHEN 'adult_income' THEN 0.845 WHEN 'speed_dating' THEN 0.677 WHEN 'compas' THEN 0.693 ELSE 0.75 END) FROM `ai_models` m WHERE m.`model_identifier` = `served_explanations`.`ai_model_identifier` LIMIT 1);
