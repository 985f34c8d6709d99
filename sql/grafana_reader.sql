-- A read-only MySQL user for Grafana's dashboard (conf/grafana): SELECT on the counts, the ledger
-- and the dead letters, nothing else. Run by an admin; safe to run again. The password is put in
-- for `reader_password` (docker-compose.yml runs it as init SQL with the grafana_reader_password
-- secret; `make schema` on the native stack does the same with .local/secrets/grafana_reader_password).
CREATE USER IF NOT EXISTS 'errorcount_reader'@'%' IDENTIFIED BY 'reader_password';
ALTER USER 'errorcount_reader'@'%' IDENTIFIED BY 'reader_password';
GRANT SELECT ON `errorcount`.* TO 'errorcount_reader'@'%';
