-- Issue #45: a serve's key wrote its alpha with printf('%.17g'), which SQLite stops at 16
-- significant digits: 1 and the next double (1 + 2^-52) shared a key, so a serve at the one would
-- have counted on the other's row. '%!.17g' writes all 17. The key is virtual: dropping and adding
-- it again makes it anew from each row's columns, and keys only grow more distinct.
DROP INDEX `served_explanations_serve_uq`;--> statement-breakpoint
ALTER TABLE `served_explanations` DROP COLUMN `serve_key`;--> statement-breakpoint
ALTER TABLE `served_explanations` ADD `serve_key` text GENERATED ALWAYS AS (kind || '|' || ai_model_identifier || '|' || coalesce(user_model_identifier, '-') || '|' || (case when alignment_alpha is null then '-' else printf('%!.17g', alignment_alpha) end) || '|' || coalesce(ai_only_reason, '-')) VIRTUAL;--> statement-breakpoint
CREATE UNIQUE INDEX `served_explanations_serve_uq` ON `served_explanations` (`session_id`,`case_id`,`serve_key`);
