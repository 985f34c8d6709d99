# Sourced by the mysql image's entrypoint (docker-entrypoint-initdb.d) on first start, after
# schema.sql: sql/grants.sql with the stack's MYSQL_DATABASE and MYSQL_USER put in for the
# defaults it names (scripts/sql-template.sh, as for the native stack).
source "${SQL_TEMPLATE:-/sql/sql-template.sh}"  # mounted by docker-compose.yml
sql_template "${GRANTS_SQL:-/sql/grants.sql}" | docker_process_sql
