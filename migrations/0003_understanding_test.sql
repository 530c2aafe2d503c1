CREATE TABLE `understanding_test_attempts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`participant_id` integer NOT NULL,
	`session_id` text NOT NULL,
	`dataset_type` text NOT NULL,
	`attempt_id` text NOT NULL,
	`attempt_number` integer NOT NULL,
	`answers` text NOT NULL,
	`correct_count` integer NOT NULL,
	`total_questions` integer NOT NULL,
	`passed` integer NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`participant_id`) REFERENCES `participants`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "understanding_attempts_score_ck" CHECK("understanding_test_attempts"."correct_count" between 0 and "understanding_test_attempts"."total_questions")
);
--> statement-breakpoint
CREATE UNIQUE INDEX `understanding_attempts_session_attempt_uq` ON `understanding_test_attempts` (`session_id`,`attempt_id`);--> statement-breakpoint
CREATE INDEX `understanding_attempts_participant_idx` ON `understanding_test_attempts` (`participant_id`);