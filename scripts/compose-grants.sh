# Sourced by the mysql image's entrypoint (docker-entrypoint-initdb.d) on first start, after
# schema.sql: sql/grants.sql with the stack's MYSQL_DATABASE and MYSQL_USER put in for the
# defaults it names (as scripts/lib.sh grants_sql does for the native stack).
sed -e "s/\`errorcount\`\\./\`${MYSQL_DATABASE}\`./g" -e "s/'errorcount'@/'${MYSQL_USER}'@/g" "${GRANTS_SQL:-/sql/grants.sql}" \
  | docker_process_sql
