# Sourced by the mysql image's entrypoint (docker-entrypoint-initdb.d) on first start:
# sql/grafana_reader.sql with the grafana_reader_password secret put in for `reader_password` and
# error_log for `counts_table` (a job with its own COUNTS_TABLE: run `make schema` for its grant).
reader_password=$(cat /run/secrets/grafana_reader_password)
sed -e "s/reader_password/${reader_password}/g" -e "s/\`errorcount\`/\`${MYSQL_DATABASE}\`/g" \
    -e "s/\`counts_table\`/\`error_log\`/" /sql/grafana_reader.sql \
  | docker_process_sql
