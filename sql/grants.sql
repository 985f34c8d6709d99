-- Least privilege for the job's MySQL user: rows only, no schema changes, and deletes only where
-- RETENTION_DAYS prunes (old ledger rows are merged, old dead letters removed); never error_log.
-- Run by an admin after the user exists. docker-compose.yml runs it as init SQL (after the
-- mysql image created MYSQL_USER with ALL on MYSQL_DATABASE); scripts/mariadb.sh issues the same
-- grants for the native stack. Names are the defaults of .env: edit both if you change them.
REVOKE ALL PRIVILEGES ON `errorcount`.* FROM 'errorcount'@'%';
GRANT SELECT, INSERT, UPDATE ON `errorcount`.* TO 'errorcount'@'%';
GRANT DELETE ON `errorcount`.`ingest_batches` TO 'errorcount'@'%';
GRANT DELETE ON `errorcount`.`rejected_lines` TO 'errorcount'@'%';
