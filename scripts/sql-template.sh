# The one SQL templating helper (sourced: scripts/lib.sh for the native stack, the compose MySQL
# container's init scripts, the tests through tests/harness/admin_db.py):
#   sql_template FILE    FILE with this stack's names put in for the defaults the sql/ files name:
#                        `errorcount`. -> MYSQL_DATABASE, 'errorcount'@ -> MYSQL_USER,
#                        counts_table -> COUNTS_TABLE (default error_log),
#                        reader_password -> READER_PASSWORD (the Grafana reader's secret)
# A name that would need quoting (/ & \ ` ' or a newline) is refused rather than put in as is.
sql_template() {
  case "${MYSQL_DATABASE:-}${MYSQL_USER:-}${COUNTS_TABLE:-}${READER_PASSWORD:-}" in
    *[/\&\\\`\']*|*$'\n'*)
      echo "sql_template: MYSQL_DATABASE, MYSQL_USER, COUNTS_TABLE or the reader's password holds a character this template cannot put in SQL as is (/ & \\ \` '): choose names of letters, digits and _" >&2
      return 1 ;;
  esac
  sed -e "s/\`errorcount\`\\./\`${MYSQL_DATABASE:-errorcount}\`./g" -e "s/'errorcount'@/'${MYSQL_USER:-errorcount}'@/g" \
      -e "s/counts_table/${COUNTS_TABLE:-error_log}/g" -e "s/reader_password/${READER_PASSWORD:-}/g" "$1"
}
