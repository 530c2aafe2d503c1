-- Issue #45: a case set keeps one index, its primary key (session, phase, position). A case is
-- found in its set among that session's and phase's rows (at most 200); the seeded draw keeps a
-- set's cases distinct. Its rows' creation time, never read nor exported, goes: the session
-- records when each phase began. DROP COLUMN rewrites the rows without it.
DROP INDEX `case_set_items_case_uq`;--> statement-breakpoint
ALTER TABLE `case_set_items` DROP COLUMN `created_at`;
