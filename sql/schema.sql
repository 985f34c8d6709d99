-- Schema of the error-log counter. Idempotent: safe to apply again at any time.
-- Runs on MySQL 8.4 and MariaDB 10.11. Applied by an admin account (the job itself only
-- reads and writes rows; it verifies at startup that these tables and columns exist).

-- Per-minute ERROR line counts (UTC minutes when the line carried a zone, else as written), and
-- with COUNT_LINES every line of the minute (error or not; rejects are not lines): log_count <=
-- line_count, the error ratio's numerator and denominator, in one row. A minute with lines and no
-- ERROR line has log_count 0.
CREATE TABLE IF NOT EXISTS error_log (
  log_time   DATETIME NOT NULL PRIMARY KEY,
  log_count  BIGINT   NOT NULL DEFAULT 0,
  line_count BIGINT   NOT NULL DEFAULT 0
) ENGINE = InnoDB;

-- Next Kafka offset to read, per job, topic and partition: committed in the same transaction
-- as the counts it produced, so counts and offsets can never disagree.
CREATE TABLE IF NOT EXISTS kafka_offsets (
  job             VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  topic           VARCHAR(249) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  kafka_partition INT          NOT NULL,
  next_offset     BIGINT       NOT NULL,
  topic_id        VARCHAR(32)  CHARACTER SET ascii COLLATE ascii_bin NULL,  -- Kafka's topic ID the offset belongs to ('deleted:<ID>': given up)
  seen_end        BIGINT       NULL,  -- the highest end offset the job has seen the partition at (a deleted topic counted to it is retired)
  counted_from    BIGINT       NULL,  -- the first offset the job counted of the topic as it is now (a recount reads from no earlier; NULL: stored before)
  updated_at      DATETIME(3)  NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  PRIMARY KEY (job, topic, kafka_partition)
) ENGINE = InnoDB;

-- One row per job name: the instance holding the newest epoch is the only one allowed to commit.
-- Every start bumps the epoch; every batch commit locks this row and checks it (fencing).
CREATE TABLE IF NOT EXISTS job_leases (
  job         VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL PRIMARY KEY,
  epoch       BIGINT       NOT NULL,
  owner       VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  acquired_at DATETIME(3)  NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  metrics_endpoint VARCHAR(255) NULL,  -- host:port of the holder's Prometheus endpoint (METRICS_PORT), if any
  first_planned_at DATETIME(3) NULL,  -- when the job's first start was stored: STARTING_OFFSETS applied then, never again
  rules_digest CHAR(64) CHARACTER SET ascii NULL,  -- SHA-256 of `rules`, written at every start (errorcount/config/rules.py)
  rules        TEXT NULL  -- the holder's counting rules (the classifier's settings, MAX_SERIES) as JSON
) ENGINE = InnoDB;

-- The ledger: one row per committed batch, written in the batch's own transaction.
-- SUM(records) over a job's rows is everything it has consumed. Rows older than RETENTION_DAYS
-- are merged per job, topic, epoch and UTC day (sums kept; `batches` says how many were merged).
CREATE TABLE IF NOT EXISTS ingest_batches (
  id             BIGINT       NOT NULL AUTO_INCREMENT PRIMARY KEY,
  job            VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  topic          VARCHAR(249) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  epoch          BIGINT       NOT NULL,
  records        BIGINT       NOT NULL,  -- Kafka records
  log_records    BIGINT       NULL,      -- the log records in them (LOG_FORMAT=otlp: a request holds many); NULL: stored before, as many as records
  error_lines    BIGINT       NOT NULL,
  rejected       BIGINT       NOT NULL,
  new_series     INT          NOT NULL DEFAULT 0,  -- GROUP_BY: series this batch registered
  overflow_lines BIGINT       NOT NULL DEFAULT 0,  -- GROUP_BY: ERROR lines counted into an overflow series (MAX_SERIES)
  batches        INT          NOT NULL DEFAULT 1,  -- committed batches this row stands for
  offsets_before TEXT         NOT NULL,  -- JSON {"partition": next offset} before the batch
  offsets_after  TEXT         NOT NULL,  -- JSON {"partition": next offset} after the batch
  committed_at   DATETIME(3)  NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  KEY ingest_batches_job (job, topic, id)
) ENGINE = InnoDB;

-- Dead letters: rejected records (up to a per-batch cap), with why and the start of the value,
-- per job (two jobs on one topic keep and prune their own). Deleted RETENTION_DAYS after seen_at
-- (the index serves those deletes).
CREATE TABLE IF NOT EXISTS rejected_lines (
  job             VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL DEFAULT '',
  topic           VARCHAR(249) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  kafka_partition INT          NOT NULL,
  kafka_offset    BIGINT       NOT NULL,
  reason          VARCHAR(32)  NOT NULL,
  raw_value       VARBINARY(1024) NULL,  -- first 1 KiB of the record's value; NULL for a null value
  seen_at         DATETIME(3)  NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  PRIMARY KEY (job, topic, kafka_partition, kafka_offset),
  KEY rejected_lines_seen (job, topic, seen_at)
) ENGINE = InnoDB;

-- What a start did to a partition besides resuming it: records skipped under ON_DATA_LOSS = skip
-- (never counted) and topics retired (counted to their end, then deleted). `kind` (docs/operations.md
-- "After a skip"): retention, new_partition, truncated, recreated, given_up (losses), retired.
CREATE TABLE IF NOT EXISTS skipped_offsets (
  id              BIGINT       NOT NULL AUTO_INCREMENT PRIMARY KEY,
  job             VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  topic           VARCHAR(249) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  kafka_partition INT          NOT NULL,
  from_offset     BIGINT       NOT NULL,  -- the first offset not counted (the stored next offset; 0 for a new partition)
  to_offset       BIGINT       NOT NULL,  -- where reading went on (truncated: below from_offset; recreated, given_up: the end last seen)
  kind            VARCHAR(20)  CHARACTER SET ascii NOT NULL DEFAULT 'unknown',
  reason          TEXT         NOT NULL,  -- what happened to this partition (the job keeps it under 2000 characters)
  epoch           BIGINT       NULL,      -- the job's epoch (job_leases) at the start that recorded it
  skipped_at      DATETIME(3)  NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  KEY skipped_offsets_job (job, kind, skipped_at)
) ENGINE = InnoDB;

-- Which job writes which counts table: a table belongs to the first job that writes it; another
-- job is refused at startup unless it and every job already listed set SHARE_COUNTS_TABLE.
-- An admin releases a table by deleting its rows here (make schema never does).
CREATE TABLE IF NOT EXISTS counts_tables (
  counts_table VARCHAR(64)  CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  job          VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  shared       BOOLEAN      NOT NULL DEFAULT FALSE,
  claimed_at   DATETIME(3)  NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  PRIMARY KEY (counts_table, job)
) ENGINE = InnoDB;

-- GROUP_BY: per-dimension counts. A series is one combination of dimension values of one job,
-- registered under the GROUP_BY it was counted with (`dimensions`, canonical: sorted); its labels
-- are the values by dimension. At most MAX_SERIES per job, admitted in the batch's transaction;
-- further ERROR lines go to the job's overflow series of that GROUP_BY (labels NULL). series_key is
-- SHA-256 of the GROUP_BY and the values (errorcount/config/dimensions.py). The job never deletes series.
CREATE TABLE IF NOT EXISTS error_series (
  series_id   BIGINT       NOT NULL AUTO_INCREMENT PRIMARY KEY,
  job         VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  dimensions  VARCHAR(500) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  series_key  BINARY(32)   NOT NULL,
  overflow    BOOLEAN      NOT NULL DEFAULT FALSE,
  created_at  DATETIME(3)  NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  UNIQUE KEY error_series_key (job, series_key)
) ENGINE = InnoDB;

CREATE TABLE IF NOT EXISTS error_series_labels (
  series_id BIGINT       NOT NULL,
  dimension VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,  -- level, status, field:service.name, ...
  value     VARCHAR(64)  CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL,      -- NULL: the overflow series
  PRIMARY KEY (series_id, dimension)
) ENGINE = InnoDB;

-- ERROR lines (and with COUNT_LINES all lines) per minute and series, in the same transaction as
-- the totals in COUNTS_TABLE: for each minute counted with GROUP_BY on, the job's series add up to
-- the totals in both columns. Rows of minutes older than SERIES_RETENTION_DAYS are deleted.
CREATE TABLE IF NOT EXISTS error_series_counts (
  job        VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  log_time   DATETIME     NOT NULL,
  series_id  BIGINT       NOT NULL,
  log_count  BIGINT       NOT NULL DEFAULT 0,
  line_count BIGINT       NOT NULL DEFAULT 0,
  PRIMARY KEY (job, log_time, series_id)
) ENGINE = InnoDB;

-- counted_through: every record Kafka had made readable in the job's topics before through_at
-- (UTC) is counted, in the offsets stored beside it (docs/design.md, "Why counted_through never runs
-- ahead"). One row per topic the job reads and one for the job as a whole (topic ''), written in
-- each batch's transaction and, while the topics are idle, by a transaction of its own; never
-- lowered. complete_before = through_at - LATENESS: a minute that ends at or before it is complete.
-- The recounts' ledger (make recount, docs/operations.md "Recounting a time range"): one row per
-- chunk of minutes swapped in, written in the swap's own transaction.
CREATE TABLE IF NOT EXISTS recounts (
  id              BIGINT       NOT NULL AUTO_INCREMENT PRIMARY KEY,
  job             VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  first_minute    DATETIME     NOT NULL,  -- the chunk's minutes [first_minute, end_minute)
  end_minute      DATETIME     NOT NULL,
  offsets_from    TEXT         NOT NULL,  -- JSON {"topic": {"partition": offset}}: where the recount read from
  offsets_to      TEXT         NOT NULL,  -- the job's stored offsets under the swap's lock: read up to them
  errors_before   BIGINT       NOT NULL,
  lines_before    BIGINT       NOT NULL,
  errors_after    BIGINT       NOT NULL,
  lines_after     BIGINT       NOT NULL,
  rejects_before  BIGINT       NULL,      -- the chunk's rejects (rejected_minutes, by Kafka minute) before and after;
  rejects_after   BIGINT       NULL,      -- NULL in rows written before the ledger kept them
  minutes_changed INT          NOT NULL,
  series_rows     INT          NOT NULL DEFAULT 0,  -- per-series rows written (GROUP_BY)
  rules_digest    CHAR(64)     CHARACTER SET ascii NOT NULL,  -- the rules counted under (job_leases.rules_digest)
  epoch           BIGINT       NOT NULL,  -- the live job's lease epoch at the swap
  recounted_by    VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  recounted_at    DATETIME(3)  NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  KEY recounts_job (job, recounted_at)
) ENGINE = InnoDB;

CREATE TABLE IF NOT EXISTS counted_through (
  job             VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  topic           VARCHAR(249) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,  -- '': every topic of the job
  through_at      DATETIME(3)  NOT NULL,
  complete_before DATETIME(3)  NOT NULL,
  updated_at      DATETIME(3)  NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  PRIMARY KEY (job, topic)
) ENGINE = InnoDB;

-- Rejected records (log records with LOG_FORMAT=otlp) per job, topic and minute of their Kafka
-- record's timestamp (UTC): a reject has no event minute of its own, so it is outside every
-- minute's ratio; this says when broken input arrived (docs/operations.md, "Rejects beside the
-- ratio"). Written in the batch's transaction; not pruned, as the counts table is not.
CREATE TABLE IF NOT EXISTS rejected_minutes (
  job      VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  topic    VARCHAR(249) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  log_time DATETIME     NOT NULL,
  rejected BIGINT       NOT NULL DEFAULT 0,
  PRIMARY KEY (job, log_time, topic)
) ENGINE = InnoDB;

-- Complete minutes that changed afterwards (docs/operations.md, "Complete minutes that changed"):
-- a row per minute (series_id 0: the counts table's row) and per series (GROUP_BY) that a batch
-- added lines to after the minute was complete (log_time + 1 minute <= the job's complete_before
-- as stored when the batch began), with the row's errors and lines before and after the batch.
-- Written in the batch's own transaction; only late lines write rows. ledger_id: the batch's first
-- ingest_batches row. Deleted RETENTION_DAYS after changed_at (the index serves those deletes).
CREATE TABLE IF NOT EXISTS changed_minutes (
  job           VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  log_time      DATETIME     NOT NULL,
  series_id     BIGINT       NOT NULL,  -- 0: the minute's row in the job's counts table
  ledger_id     BIGINT       NOT NULL,
  epoch         BIGINT       NOT NULL,
  errors_before BIGINT       NOT NULL,
  errors_after  BIGINT       NOT NULL,
  lines_before  BIGINT       NOT NULL,
  lines_after   BIGINT       NOT NULL,
  changed_at    DATETIME(3)  NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  PRIMARY KEY (job, ledger_id, log_time, series_id),
  KEY changed_minutes_time (job, log_time),
  KEY changed_minutes_changed (changed_at)
) ENGINE = InnoDB;

-- Migrations for databases created by an earlier version of this file. MySQL 8.4 has neither
-- ADD COLUMN IF NOT EXISTS nor CREATE INDEX IF NOT EXISTS (MariaDB has both), so each change
-- is a statement chosen from information_schema: the change if it is missing, else a no-op.
SET @ddl = IF((SELECT COUNT(*) FROM information_schema.columns WHERE table_schema = DATABASE()
               AND table_name = 'ingest_batches' AND column_name = 'batches') = 0,
              'ALTER TABLE ingest_batches ADD COLUMN batches INT NOT NULL DEFAULT 1 AFTER rejected', 'DO 0');
PREPARE migration FROM @ddl;
EXECUTE migration;
DEALLOCATE PREPARE migration;

SET @ddl = IF((SELECT COUNT(*) FROM information_schema.statistics WHERE table_schema = DATABASE()
               AND table_name = 'rejected_lines' AND index_name = 'rejected_lines_seen') = 0,
              'CREATE INDEX rejected_lines_seen ON rejected_lines (topic, seen_at)', 'DO 0');
PREPARE migration FROM @ddl;
EXECUTE migration;
DEALLOCATE PREPARE migration;

-- rejected_lines gains the job in its key; rows stored before keep job '' (pruned by any job
-- reading that topic, errorcount/store/retention.py).
SET @ddl = IF((SELECT COUNT(*) FROM information_schema.columns WHERE table_schema = DATABASE()
               AND table_name = 'rejected_lines' AND column_name = 'job') = 0,
              CONCAT('ALTER TABLE rejected_lines ADD COLUMN job VARCHAR(200) CHARACTER SET utf8mb4 ',
                     'COLLATE utf8mb4_bin NOT NULL DEFAULT \'\' FIRST, DROP PRIMARY KEY, ',
                     'ADD PRIMARY KEY (job, topic, kafka_partition, kafka_offset), DROP INDEX rejected_lines_seen, ',
                     'ADD INDEX rejected_lines_seen (job, topic, seen_at)'), 'DO 0');
PREPARE migration FROM @ddl;
EXECUTE migration;
DEALLOCATE PREPARE migration;

-- job_leases gains the holder's metrics endpoint (where a YARN driver landed).
SET @ddl = IF((SELECT COUNT(*) FROM information_schema.columns WHERE table_schema = DATABASE()
               AND table_name = 'job_leases' AND column_name = 'metrics_endpoint') = 0,
              'ALTER TABLE job_leases ADD COLUMN metrics_endpoint VARCHAR(255) NULL', 'DO 0');
PREPARE migration FROM @ddl;
EXECUTE migration;
DEALLOCATE PREPARE migration;

-- Offsets carry the ID of the topic they belong to (a recreated topic has a new one). Rows stored
-- before have NULL; the job adopts the topic's current ID on its next start and logs it.
SET @ddl = IF((SELECT COUNT(*) FROM information_schema.columns WHERE table_schema = DATABASE()
               AND table_name = 'kafka_offsets' AND column_name = 'topic_id') = 0,
              'ALTER TABLE kafka_offsets ADD COLUMN topic_id VARCHAR(32) CHARACTER SET ascii COLLATE ascii_bin NULL AFTER next_offset',
              'DO 0');
PREPARE migration FROM @ddl;
EXECUTE migration;
DEALLOCATE PREPARE migration;

-- A skip's reason is per partition and may be long (VARCHAR(255) failed starts in strict mode).
SET @ddl = IF((SELECT data_type FROM information_schema.columns WHERE table_schema = DATABASE()
               AND table_name = 'skipped_offsets' AND column_name = 'reason') = 'varchar',
              'ALTER TABLE skipped_offsets MODIFY reason TEXT NOT NULL', 'DO 0');
PREPARE migration FROM @ddl;
EXECUTE migration;
DEALLOCATE PREPARE migration;

-- Counts are BIGINT: one minute past 2^31 - 1 (every event stamped with one time) must not fail batches.
SET @ddl = IF((SELECT data_type FROM information_schema.columns WHERE table_schema = DATABASE()
               AND table_name = 'error_log' AND column_name = 'log_count') = 'int',
              'ALTER TABLE error_log MODIFY log_count BIGINT NOT NULL DEFAULT 0', 'DO 0');
PREPARE migration FROM @ddl;
EXECUTE migration;
DEALLOCATE PREPARE migration;

-- The ledger counts what GROUP_BY's cap did to each batch.
SET @ddl = IF((SELECT COUNT(*) FROM information_schema.columns WHERE table_schema = DATABASE()
               AND table_name = 'ingest_batches' AND column_name = 'overflow_lines') = 0,
              CONCAT('ALTER TABLE ingest_batches ADD COLUMN new_series INT NOT NULL DEFAULT 0 AFTER rejected, ',
                     'ADD COLUMN overflow_lines BIGINT NOT NULL DEFAULT 0 AFTER new_series'), 'DO 0');
PREPARE migration FROM @ddl;
EXECUTE migration;
DEALLOCATE PREPARE migration;

-- The start planner: the end offset seen per partition, the job's first start, and what kind each
-- skipped_offsets row is (rows written before: told from their reason).
SET @ddl = IF((SELECT COUNT(*) FROM information_schema.columns WHERE table_schema = DATABASE()
               AND table_name = 'kafka_offsets' AND column_name = 'seen_end') = 0,
              'ALTER TABLE kafka_offsets ADD COLUMN seen_end BIGINT NULL AFTER topic_id', 'DO 0');
PREPARE migration FROM @ddl;
EXECUTE migration;
DEALLOCATE PREPARE migration;

SET @ddl = IF((SELECT COUNT(*) FROM information_schema.columns WHERE table_schema = DATABASE()
               AND table_name = 'job_leases' AND column_name = 'first_planned_at') = 0,
              'ALTER TABLE job_leases ADD COLUMN first_planned_at DATETIME(3) NULL', 'DO 0');
PREPARE migration FROM @ddl;
EXECUTE migration;
DEALLOCATE PREPARE migration;

SET @ddl = IF((SELECT COUNT(*) FROM information_schema.columns WHERE table_schema = DATABASE()
               AND table_name = 'job_leases' AND column_name = 'rules_digest') = 0,
              'ALTER TABLE job_leases ADD COLUMN rules_digest CHAR(64) CHARACTER SET ascii NULL, ADD COLUMN rules TEXT NULL',
              'DO 0');
PREPARE migration FROM @ddl;
EXECUTE migration;
DEALLOCATE PREPARE migration;

-- The log records of a batch's Kafka records (an OTLP request holds many): rows stored before have
-- NULL, which readers take as `records` (one log record per record, as every format had then).
SET @ddl = IF((SELECT COUNT(*) FROM information_schema.columns WHERE table_schema = DATABASE()
               AND table_name = 'ingest_batches' AND column_name = 'log_records') = 0,
              'ALTER TABLE ingest_batches ADD COLUMN log_records BIGINT NULL AFTER records', 'DO 0');
PREPARE migration FROM @ddl;
EXECUTE migration;
DEALLOCATE PREPARE migration;

-- Where the job began counting each partition: rows stored before have NULL (a recount then takes
-- the first ledger row's offsets, errorcount/store/recount.py).
SET @ddl = IF((SELECT COUNT(*) FROM information_schema.columns WHERE table_schema = DATABASE()
               AND table_name = 'kafka_offsets' AND column_name = 'counted_from') = 0,
              'ALTER TABLE kafka_offsets ADD COLUMN counted_from BIGINT NULL AFTER seen_end', 'DO 0');
PREPARE migration FROM @ddl;
EXECUTE migration;
DEALLOCATE PREPARE migration;

SET @ddl = IF((SELECT COUNT(*) FROM information_schema.columns WHERE table_schema = DATABASE()
               AND table_name = 'skipped_offsets' AND column_name = 'kind') = 0,
              CONCAT('ALTER TABLE skipped_offsets ADD COLUMN kind VARCHAR(20) CHARACTER SET ascii NOT NULL ',
                     'DEFAULT \'unknown\' AFTER to_offset, ADD COLUMN epoch BIGINT NULL AFTER reason, ',
                     'ADD INDEX skipped_offsets_job (job, kind, skipped_at)'), 'DO 0');
PREPARE migration FROM @ddl;
EXECUTE migration;
DEALLOCATE PREPARE migration;

UPDATE skipped_offsets SET kind = CASE
    WHEN reason LIKE '%deleted before they were counted%' THEN 'retention'
    WHEN reason LIKE '%beyond the partition''s end%' THEN 'truncated'
    WHEN reason LIKE '%topic recreated%' THEN 'recreated'
    WHEN reason LIKE '%topic deleted while the job had offsets%' THEN 'given_up'
    ELSE 'unknown' END
WHERE kind = 'unknown';

-- Lines per minute (COUNT_LINES): line_count beside log_count, 0 for minutes counted before.
SET @ddl = IF((SELECT COUNT(*) FROM information_schema.columns WHERE table_schema = DATABASE()
               AND table_name = 'error_log' AND column_name = 'line_count') = 0,
              'ALTER TABLE error_log ADD COLUMN line_count BIGINT NOT NULL DEFAULT 0 AFTER log_count', 'DO 0');
PREPARE migration FROM @ddl;
EXECUTE migration;
DEALLOCATE PREPARE migration;

SET @ddl = IF((SELECT COUNT(*) FROM information_schema.columns WHERE table_schema = DATABASE()
               AND table_name = 'error_series_counts' AND column_name = 'line_count') = 0,
              'ALTER TABLE error_series_counts ADD COLUMN line_count BIGINT NOT NULL DEFAULT 0 AFTER log_count', 'DO 0');
PREPARE migration FROM @ddl;
EXECUTE migration;
DEALLOCATE PREPARE migration;

-- The recounts' ledger keeps each chunk's rejects before and after (rows written before: NULL).
SET @ddl = IF((SELECT COUNT(*) FROM information_schema.columns WHERE table_schema = DATABASE()
               AND table_name = 'recounts' AND column_name = 'rejects_before') = 0,
              CONCAT('ALTER TABLE recounts ADD COLUMN rejects_before BIGINT NULL AFTER lines_after, ',
                     'ADD COLUMN rejects_after BIGINT NULL AFTER rejects_before'), 'DO 0');
PREPARE migration FROM @ddl;
EXECUTE migration;
DEALLOCATE PREPARE migration;

-- The per-dimension counts with their labels: one row per minute, series and dimension. Sum
-- log_count (and line_count) grouped by `value` for one `dimension` (value NULL: over MAX_SERIES);
-- docs/operations.md. Defined after the migrations: it reads line_count.
-- `complete`: the minute is complete for its job (counted_through, LATENESS).
CREATE OR REPLACE VIEW error_counts_by_label AS
SELECT c.job, c.log_time, l.dimension, l.value, c.log_count, c.line_count, c.series_id, s.dimensions,
       COALESCE(c.log_time + INTERVAL 1 MINUTE <= t.complete_before, FALSE) AS complete
FROM error_series_counts c
JOIN error_series s ON s.series_id = c.series_id
JOIN error_series_labels l ON l.series_id = c.series_id
LEFT JOIN counted_through t ON t.job = c.job AND t.topic = '';

-- Where each counts table is complete: the oldest complete_before of the jobs writing it (NULL
-- while one of them has none yet).
CREATE OR REPLACE VIEW counts_complete AS
SELECT c.counts_table AS table_name, CASE WHEN COUNT(t.job) = COUNT(*) THEN MIN(t.complete_before) END AS complete_before
FROM counts_tables c
LEFT JOIN counted_through t ON t.job = c.job AND t.topic = ''
GROUP BY c.counts_table;

-- Where each job is complete per topic it reads (docs/operations.md, "Completeness per topic"):
-- a minute of topic T is complete when it ends at or before T's complete_before. The job-wide mark
-- (topic '') is the oldest of its topics'; a topic that lags holds it back, this view shows which.
CREATE OR REPLACE VIEW complete_by_topic AS
SELECT t.job, t.topic, t.through_at, t.complete_before, t.updated_at,
       t.complete_before = w.complete_before AS holds_back_job
FROM counted_through t
JOIN counted_through w ON w.job = t.job AND w.topic = ''
WHERE t.topic <> '';

-- error_log with each minute's ratio and whether it is complete (the ratio is NULL without lines).
CREATE OR REPLACE VIEW error_log_minutes AS
SELECT e.log_time, e.log_count, e.line_count, e.log_count / NULLIF(e.line_count, 0) AS error_ratio,
       COALESCE(e.log_time + INTERVAL 1 MINUTE <= w.complete_before, FALSE) AS complete
FROM error_log e
LEFT JOIN counts_complete w ON w.table_name = 'error_log';
