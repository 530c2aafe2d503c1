-- Issue #45: a case set's rows are kept in the order of their primary key (session, phase,
-- position) alone: WITHOUT ROWID, the table is that key's b-tree, and the second copy of every
-- row's key that a rowid table keeps in its primary key's index goes. The rows are copied as they
-- are. (drizzle-kit does not write WITHOUT ROWID: a later rebuild of this table must keep it.)
CREATE TABLE `__new_case_set_items` (
	`session_id` text NOT NULL,
	`phase` text NOT NULL,
	`position` integer NOT NULL,
	`case_id` text NOT NULL,
	`alignment_alpha` real,
	PRIMARY KEY(`session_id`, `phase`, `position`)
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `__new_case_set_items` (`session_id`, `phase`, `position`, `case_id`, `alignment_alpha`) SELECT `session_id`, `phase`, `position`, `case_id`, `alignment_alpha` FROM `case_set_items`;--> statement-breakpoint
DROP TABLE `case_set_items`;--> statement-breakpoint
ALTER TABLE `__new_case_set_items` RENAME TO `case_set_items`;
