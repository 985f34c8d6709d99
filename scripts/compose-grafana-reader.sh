# Sourced by the mysql image's entrypoint (docker-entrypoint-initdb.d) on first start:
# sql/grafana_reader.sql with the grafana_reader_password secret put in for `reader_password` and
# error_log for `counts_table` (a job with its own COUNTS_TABLE: run `make schema` for its grant),
# by scripts/sql-template.sh, as for the native stack.
source "${SQL_TEMPLATE:-/sql/sql-template.sh}"  # mounted by docker-compose.yml
READER_PASSWORD=$(cat /run/secrets/grafana_reader_password) COUNTS_TABLE=error_log \
  sql_template /sql/grafana_reader.sql | docker_process_sql
