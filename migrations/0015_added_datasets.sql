CREATE TABLE `added_datasets` (
	`dataset_type` text PRIMARY KEY NOT NULL,
	`definition` text NOT NULL,
	`source_sha256` text NOT NULL,
	`source_rows` integer NOT NULL,
	`case_count` integer NOT NULL,
	`model_identifier` text NOT NULL,
	`enabled` integer NOT NULL,
	`updated_at` text NOT NULL,
	`created_at` text NOT NULL
);
