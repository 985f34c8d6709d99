-- Least privilege for the job's MySQL user: rows only, no schema changes, and deletes only where
-- RETENTION_DAYS prunes (old ledger rows are merged, old dead letters removed) and
-- SERIES_RETENTION_DAYS (old per-dimension counts); never error_log.
-- Run by an admin after the user and the tables exist; safe to run again, whatever the user holds.
-- docker-compose.yml runs it as init SQL (after the mysql image created MYSQL_USER with ALL on
-- MYSQL_DATABASE and applied schema.sql); scripts/db.sh runs it for the native stack with the
-- names of .env put in. Names here are the defaults of .env: edit both if you change them.
-- The first GRANT makes sure the user holds a grant on the database, so that the REVOKE cannot
-- fail on MySQL 8 (error 1141 when there is none; MariaDB has no REVOKE IF EXISTS).
GRANT SELECT ON `errorcount`.* TO 'errorcount'@'%';
REVOKE ALL PRIVILEGES ON `errorcount`.* FROM 'errorcount'@'%';
GRANT SELECT, INSERT, UPDATE ON `errorcount`.* TO 'errorcount'@'%';
GRANT DELETE ON `errorcount`.`ingest_batches` TO 'errorcount'@'%';
GRANT DELETE ON `errorcount`.`rejected_lines` TO 'errorcount'@'%';
GRANT DELETE ON `errorcount`.`error_series_counts` TO 'errorcount'@'%';
GRANT DELETE ON `errorcount`.`changed_minutes` TO 'errorcount'@'%';
