CREATE TABLE `export_copies` (
	`object_key` text PRIMARY KEY NOT NULL,
	`participant_codes` text NOT NULL,
	`created_at` text NOT NULL
);
