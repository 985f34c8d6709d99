-- A read-only MySQL user for Grafana's dashboard (conf/grafana): SELECT on the counts, the ledger,
-- the dead letters, the per-dimension counts (GROUP_BY) and counted_through with the views over them, nothing else (not the leases with their hosts and pids, not the offsets).
-- Run by an admin; safe to run again, also over the database-wide grant earlier versions gave.
-- The password is put in for `reader_password` and the job's counts table for `counts_table`
-- (docker-compose.yml runs it as init SQL with the grafana_reader_password secret; `make schema`
-- on the native stack does the same with .local/secrets/grafana_reader_password and COUNTS_TABLE).
CREATE USER IF NOT EXISTS 'errorcount_reader'@'%' IDENTIFIED BY 'reader_password';
ALTER USER 'errorcount_reader'@'%' IDENTIFIED BY 'reader_password';
-- The first GRANT makes sure a database-level grant exists, so the REVOKE cannot fail on MySQL 8
-- (error 1141 when there is none); the REVOKE then removes it with whatever else it held.
GRANT SELECT ON `errorcount`.* TO 'errorcount_reader'@'%';
REVOKE ALL PRIVILEGES ON `errorcount`.* FROM 'errorcount_reader'@'%';
GRANT SELECT ON `errorcount`.`error_log` TO 'errorcount_reader'@'%';
GRANT SELECT ON `errorcount`.`counts_table` TO 'errorcount_reader'@'%';
GRANT SELECT ON `errorcount`.`ingest_batches` TO 'errorcount_reader'@'%';
GRANT SELECT ON `errorcount`.`rejected_lines` TO 'errorcount_reader'@'%';
GRANT SELECT ON `errorcount`.`error_series` TO 'errorcount_reader'@'%';
GRANT SELECT ON `errorcount`.`error_series_labels` TO 'errorcount_reader'@'%';
GRANT SELECT ON `errorcount`.`error_series_counts` TO 'errorcount_reader'@'%';
GRANT SELECT ON `errorcount`.`error_counts_by_label` TO 'errorcount_reader'@'%';
GRANT SELECT ON `errorcount`.`counted_through` TO 'errorcount_reader'@'%';
GRANT SELECT ON `errorcount`.`counts_complete` TO 'errorcount_reader'@'%';
GRANT SELECT ON `errorcount`.`complete_by_topic` TO 'errorcount_reader'@'%';
GRANT SELECT ON `errorcount`.`changed_minutes` TO 'errorcount_reader'@'%';
GRANT SELECT ON `errorcount`.`rejected_minutes` TO 'errorcount_reader'@'%';
GRANT SELECT ON `errorcount`.`error_log_minutes` TO 'errorcount_reader'@'%';
GRANT SELECT ON `errorcount`.`counts_table_minutes` TO 'errorcount_reader'@'%';
