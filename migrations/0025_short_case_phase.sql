-- Issue #45: a case set's phase is stored short ('pre', 'main'; worker/db/schema.ts,
-- STORED_CASE_PHASE): it is in each of a participant's 250 rows and in both their indexes. The
-- Worker reads and exports it by its name, as before.
UPDATE `case_set_items` SET `phase` = CASE `phase` WHEN 'pre_experiment' THEN 'pre' WHEN 'main_experiment' THEN 'main' ELSE `phase` END;
