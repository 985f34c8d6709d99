# Sourced by the mysql image's entrypoint (docker-entrypoint-initdb.d) on first start:
# sql/grafana_reader.sql with the grafana_reader_password secret put in for `reader_password`.
reader_password=$(cat /run/secrets/grafana_reader_password)
sed -e "s/reader_password/${reader_password}/g" -e "s/\`errorcount\`/\`${MYSQL_DATABASE}\`/g" /sql/grafana_reader.sql \
  | docker_process_sql
