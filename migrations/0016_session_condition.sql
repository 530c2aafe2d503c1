ALTER TABLE `sessions` ADD `condition` text;--> statement-breakpoint
CREATE INDEX `sessions_dataset_condition_idx` ON `sessions` (`dataset_type`,`condition`);