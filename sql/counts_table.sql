-- A counts table of its own for a job with COUNTS_TABLE set (an access-log job beside an
-- application-log job): error_log's definition, copied, so error_log stays the one source.
-- Idempotent. `make schema` applies it, after schema.sql, with the configured name put in for
-- every counts_table; the job's grants are on the whole database (sql/grants.sql), so they cover it.
CREATE TABLE IF NOT EXISTS `counts_table` LIKE error_log;

-- Tables copied from an earlier error_log have an INT count: widen it as error_log was.
SET @ddl = IF((SELECT data_type FROM information_schema.columns WHERE table_schema = DATABASE()
               AND table_name = 'counts_table' AND column_name = 'log_count') = 'int',
              'ALTER TABLE `counts_table` MODIFY log_count BIGINT NOT NULL DEFAULT 0', 'DO 0');
PREPARE migration FROM @ddl;
EXECUTE migration;
DEALLOCATE PREPARE migration;

-- Tables copied before COUNT_LINES lack line_count: add it as error_log has it.
SET @ddl = IF((SELECT COUNT(*) FROM information_schema.columns WHERE table_schema = DATABASE()
               AND table_name = 'counts_table' AND column_name = 'line_count') = 0,
              'ALTER TABLE `counts_table` ADD COLUMN line_count BIGINT NOT NULL DEFAULT 0 AFTER log_count', 'DO 0');
PREPARE migration FROM @ddl;
EXECUTE migration;
DEALLOCATE PREPARE migration;

-- Its minutes with the ratio and whether each is complete, as error_log_minutes (sql/schema.sql).
CREATE OR REPLACE VIEW `counts_table_minutes` AS
SELECT e.log_time, e.log_count, e.line_count, e.log_count / NULLIF(e.line_count, 0) AS error_ratio,
       COALESCE(e.log_time + INTERVAL 1 MINUTE <= w.complete_before, FALSE) AS complete
FROM `counts_table` e
LEFT JOIN counts_complete w ON w.table_name = 'counts_table';
