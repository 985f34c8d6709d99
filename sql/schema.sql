-- Schema of the error-log counter. Idempotent: safe to apply again at any time.
-- Runs on MySQL 8.4 and MariaDB 10.11. Applied by an admin account (the job itself only
-- reads and writes rows; it verifies at startup that these tables and columns exist).

-- Per-minute ERROR line counts (UTC minutes when the line carried a zone, else as written).
CREATE TABLE IF NOT EXISTS error_log (
  log_time  DATETIME NOT NULL PRIMARY KEY,
  log_count INT      NOT NULL DEFAULT 0
) ENGINE = InnoDB;

-- Next Kafka offset to read, per job, topic and partition: committed in the same transaction
-- as the counts it produced, so counts and offsets can never disagree.
CREATE TABLE IF NOT EXISTS kafka_offsets (
  job             VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  topic           VARCHAR(249) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
  kafka_partition INT          NOT NULL,
  next_offset     BIGINT       NOT NULL,
  updated_at      DATETIME(3)  NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  PRIMARY KEY (job, topic, kafka_partition)
) ENGINE = InnoDB;
