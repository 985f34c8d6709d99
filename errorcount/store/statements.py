"""The SQL of the job's transactions (errorcount/store/transactions.py), parameterized, with why
each statement reads as it does. Retention's, the series registry's and the recount's live beside
their code (retention.py, series.py, recount.py); the schema in sql/."""

from errorcount.store.rows import GIVEN_UP

# Every row of the job, given-up ones and topics no longer read included (the start planner and
# Store.live choose).
SELECT_OFFSETS = ("SELECT topic, kafka_partition, next_offset, topic_id, seen_end FROM kafka_offsets "
                  "WHERE job = %s ORDER BY topic, kafka_partition")
# Upserts are written with MySQL 8's row alias; on MariaDB, which has none, transaction() runs them
# with VALUES(col) (errorcount/store/mysql.py: for_server).
UPSERT_COUNTS = ("INSERT INTO `{table}` (log_time, log_count, line_count) VALUES (%s, %s, %s) AS new "
                 "ON DUPLICATE KEY UPDATE log_count = `{table}`.log_count + new.log_count, "
                 "line_count = `{table}`.line_count + new.line_count")
# Rejected records per topic and minute of their Kafka timestamp (rejects have no minute of their own).
UPSERT_REJECTED_MINUTES = ("INSERT INTO rejected_minutes (job, topic, log_time, rejected) VALUES (%s, %s, %s, %s) AS new "
                           "ON DUPLICATE KEY UPDATE rejected = rejected_minutes.rejected + new.rejected")
# An offset is stored with the ID of the topic it belongs to (a recreated topic has another) and the
# highest end offset the job has seen the partition at: a batch raises it, a start sets it.
# counted_from (where the job began counting the partition, what a recount reads from at the
# earliest) is set when a row is first written: a partition found while the query runs is read
# from its first offset (0). A start keeps it while the topic is the same one (a truncated
# partition read again from lower offsets lowers it; a row stored before it existed keeps NULL)
# and sets it anew for a recreated topic. A batch keeps both while the row's topic is the one it
# read (its ID, the same ID given up, or a row without one), and starts them anew when it is not:
# a pattern's topic deleted (its row given up) and created again while the query runs is read
# from its first offset, and the old topic's start and end must not stand for it (a recount would
# skip its first records; once it is gone in turn, a start would report the old topic's end as
# records of the new one never counted: a false data loss). SAME_TOPIC (a start's and a batch's
# test alike) and the assignments that read the old topic_id come first: MySQL assigns left to right.
SAME_TOPIC = ("(kafka_offsets.topic_id IS NULL OR kafka_offsets.topic_id = new.topic_id "
              f"OR kafka_offsets.topic_id = CONCAT('{GIVEN_UP}', new.topic_id))")
# Every value a parameter, counted_from's 0 too: PyMySQL's executemany sends the rows as one
# multi-row INSERT only when VALUES holds placeholders alone; with a literal it sent one statement
# per partition, every batch (2 048 round trips in a batch's transaction at 2 048 partitions).
UPSERT_OFFSETS = ("INSERT INTO kafka_offsets (job, topic, kafka_partition, next_offset, topic_id, seen_end, counted_from) "
                  "VALUES (%s, %s, %s, %s, %s, %s, %s) AS new ON DUPLICATE KEY UPDATE "
                  f"counted_from = IF({SAME_TOPIC}, kafka_offsets.counted_from, new.counted_from), "
                  f"seen_end = IF({SAME_TOPIC}, GREATEST(COALESCE(kafka_offsets.seen_end, 0), new.seen_end), new.seen_end), "
                  "next_offset = new.next_offset, topic_id = new.topic_id, updated_at = CURRENT_TIMESTAMP(3)")
SETTLE_OFFSETS = ("INSERT INTO kafka_offsets (job, topic, kafka_partition, next_offset, topic_id, seen_end, counted_from) "
                  "VALUES (%s, %s, %s, %s, %s, %s, %s) AS new ON DUPLICATE KEY UPDATE "
                  f"counted_from = IF({SAME_TOPIC}, LEAST(kafka_offsets.counted_from, new.counted_from), new.counted_from), "
                  "next_offset = new.next_offset, topic_id = new.topic_id, seen_end = new.seen_end, "
                  "updated_at = CURRENT_TIMESTAMP(3)")
# The ends seen alone (a heartbeat's: records arrived and their batch is not due yet): raised,
# never lowered, on rows of the topic the job reads under that ID only; next_offset and updated_at
# (the last batch's commit) stay as they are.
RAISE_SEEN = ("UPDATE kafka_offsets SET seen_end = GREATEST(COALESCE(seen_end, 0), %s) "
              "WHERE job = %s AND topic = %s AND kafka_partition = %s AND topic_id = %s")
GIVE_UP = ("UPDATE kafka_offsets SET topic_id = LEFT(CONCAT(%s, COALESCE(topic_id, '')), 32) "
           "WHERE job = %s AND topic = %s AND kafka_partition = %s")
# STARTING_OFFSETS applies at the job's first start only: the first that stored a start.
SELECT_STARTED = ("SELECT (SELECT first_planned_at FROM job_leases WHERE job = %s) IS NOT NULL "
                  "OR EXISTS (SELECT 1 FROM kafka_offsets WHERE job = %s)")
MARK_STARTED = "UPDATE job_leases SET first_planned_at = COALESCE(first_planned_at, CURRENT_TIMESTAMP(3)) WHERE job = %s"
BUMP_LEASE = ("INSERT INTO job_leases (job, epoch, owner, metrics_endpoint, rules_digest, rules) VALUES (%s, 1, %s, %s, %s, %s) "
              "AS new ON DUPLICATE KEY UPDATE epoch = job_leases.epoch + 1, owner = new.owner, "
              "acquired_at = CURRENT_TIMESTAMP(3), metrics_endpoint = new.metrics_endpoint, "
              "rules_digest = new.rules_digest, rules = new.rules")
SELECT_LEASE = "SELECT epoch, owner FROM job_leases WHERE job = %s"
SELECT_LEASE_RULES = "SELECT epoch, rules FROM job_leases WHERE job = %s"
# Read right after BUMP_LEASE in its transaction: the row it wrote, whether a start is stored.
SELECT_LEASE_TAKEN = "SELECT epoch, first_planned_at IS NOT NULL FROM job_leases WHERE job = %s"
SELECT_LEASE_SEEN = "SELECT epoch, owner, DATE_FORMAT(acquired_at, '%%Y-%%m-%%d %%H:%%i:%%s') FROM job_leases WHERE job = %s"
# acquired_at was written in the job's UTC session: UNIX_TIMESTAMP reads it back as epoch seconds.
SELECT_LEASE_HOLDER = "SELECT epoch, owner, UNIX_TIMESTAMP(acquired_at) FROM job_leases WHERE job = %s FOR UPDATE"
# A dead letter seen again (a batch re-read after a crash) keeps its first row.
INSERT_REJECTED = ("INSERT INTO rejected_lines (job, topic, kafka_partition, kafka_offset, reason, raw_value) "
                   "VALUES (%s, %s, %s, %s, %s, %s) ON DUPLICATE KEY UPDATE kafka_offset = kafka_offset")
INSERT_LEDGER = ("INSERT INTO ingest_batches (job, topic, epoch, records, log_records, error_lines, rejected, new_series, "
                 "overflow_lines, offsets_before, offsets_after) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)")
INSERT_SKIPPED = ("INSERT INTO skipped_offsets (job, topic, kafka_partition, from_offset, to_offset, kind, reason, epoch) "
                  "VALUES (%s, %s, %s, %s, %s, %s, %s, %s)")
REASON_CHARS = 2000  # skipped_offsets.reason is TEXT (65535 bytes): 2000 characters of utf8mb4 always fit
