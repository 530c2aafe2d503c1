-- Issue #45: a serve's key (its kind, models, alpha and AI-only reason) is generated from those
-- columns and virtual: the unique index keeps it, the row no longer holds a second copy. The alpha
-- is written with 17 significant digits, so no two alphas share a key. Rows stored before are
-- copied without their key, which SQLite makes again from their columns; no two of them can
-- share one, as a key was always made from the same columns.
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_served_explanations` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`session_id` text NOT NULL,
	`case_id` text NOT NULL,
	`kind` text NOT NULL,
	`ai_only_reason` text,
	`ai_model_identifier` text NOT NULL,
	`user_model_identifier` text,
	`alignment_alpha` real,
	`ai_prediction` integer NOT NULL,
	`ai_probability` real NOT NULL,
	`ai_base_probability` real NOT NULL,
	`user_model_prediction` integer,
	`user_model_probability` real,
	`bars` text,
	`ai_feature_importance` text,
	`user_feature_importance` text,
	`shown_feature_importance` text,
	`serve_key` text GENERATED ALWAYS AS (kind || '|' || ai_model_identifier || '|' || coalesce(user_model_identifier, '-') || '|' || (case when alignment_alpha is null then '-' else printf('%.17g', alignment_alpha) end) || '|' || coalesce(ai_only_reason, '-')) VIRTUAL,
	`serve_count` integer DEFAULT 1 NOT NULL,
	`first_served_at` text NOT NULL,
	`last_served_at` text NOT NULL
);
--> statement-breakpoint
INSERT INTO `__new_served_explanations`("id", "session_id", "case_id", "kind", "ai_only_reason", "ai_model_identifier", "user_model_identifier", "alignment_alpha", "ai_prediction", "ai_probability", "ai_base_probability", "user_model_prediction", "user_model_probability", "bars", "ai_feature_importance", "user_feature_importance", "shown_feature_importance", "serve_count", "first_served_at", "last_served_at") SELECT "id", "session_id", "case_id", "kind", "ai_only_reason", "ai_model_identifier", "user_model_identifier", "alignment_alpha", "ai_prediction", "ai_probability", "ai_base_probability", "user_model_prediction", "user_model_probability", "bars", "ai_feature_importance", "user_feature_importance", "shown_feature_importance", "serve_count", "first_served_at", "last_served_at" FROM `served_explanations`;--> statement-breakpoint
DROP TABLE `served_explanations`;--> statement-breakpoint
ALTER TABLE `__new_served_explanations` RENAME TO `served_explanations`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE UNIQUE INDEX `served_explanations_serve_uq` ON `served_explanations` (`session_id`,`case_id`,`serve_key`);