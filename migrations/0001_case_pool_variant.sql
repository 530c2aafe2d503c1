DROP INDEX `cases_pool_idx`;--> statement-breakpoint
ALTER TABLE `cases` ADD `pool_variant` text;--> statement-breakpoint
CREATE INDEX `cases_pool_idx` ON `cases` (`dataset_type`,`pool`,`pool_variant`,`case_number`);