ALTER TABLE `sessions` ADD `bonus_currency` text;--> statement-breakpoint
ALTER TABLE `sessions` ADD `bonus_base_cents` integer;--> statement-breakpoint
ALTER TABLE `sessions` ADD `bonus_cents` integer;--> statement-breakpoint
ALTER TABLE `sessions` ADD `bonus_correct_final` integer;--> statement-breakpoint
ALTER TABLE `sessions` ADD `bonus_correct_pre` integer;--> statement-breakpoint
ALTER TABLE `sessions` ADD `bonus_computed_at` text;--> statement-breakpoint
ALTER TABLE `sessions` ADD `bonus_paid_at` text;