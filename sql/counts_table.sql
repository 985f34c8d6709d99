-- A counts table of its own for a job with COUNTS_TABLE set (an access-log job beside an
-- application-log job): error_log's definition, copied, so error_log stays the one source.
-- Idempotent. `make schema` applies it, after schema.sql, with the configured name put in for
-- `counts_table`; the job's grants are on the whole database (sql/grants.sql), so they cover it.
CREATE TABLE IF NOT EXISTS `counts_table` LIKE error_log;
