CREATE TABLE `recruitment` (
	`id` integer PRIMARY KEY NOT NULL,
	`status` text NOT NULL,
	`in_progress_may_finish` integer NOT NULL,
	`changed_at` text NOT NULL,
	CONSTRAINT "recruitment_single_row_ck" CHECK("recruitment"."id" = 1),
	CONSTRAINT "recruitment_status_ck" CHECK("recruitment"."status" in ('open', 'paused', 'closed'))
);
