"""(c) What a user would write instead of the Spark job: one Python process with confluent-kafka,
the same parsing contract (tests/oracles/pyparse.py) and the same MySQL transaction per batch as the job
(errorcount/store/transactions.py commit_batch: lease check, counts upsert, offsets, ledger row).

    python -m bench.pyconsumer --until '{"0": 500000, ...}'    (config from the environment)

Reads from the offsets stored in MySQL, commits every --batch records (or when caught up),
exits when the stored offsets reach --until; prints one JSON line of timings on stdout."""

import argparse
import json
import os
import socket
import sys
import time
from dataclasses import dataclass, field

from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaError, TopicPartition

from errorcount import offsets, store
from errorcount.config.load import load_config
from errorcount.pipeline.summary import BatchSummary
from errorcount.store import mysql
from tests.oracles import pyparse


@dataclass
class Running:
    """The batch being consumed: counts, per-minute ERRORs, offset ranges (the job's BatchSummary, growing)."""

    records: int = 0
    errors: int = 0
    rejected: int = 0
    minute_counts: dict[int, int] = field(default_factory=dict)
    ranges: dict[offsets.TopicPartition, tuple[int, int]] = field(default_factory=dict)

    def summary(self) -> BatchSummary:
        return BatchSummary(self.records, self.errors, self.rejected, self.minute_counts, self.ranges)


def parse_batch(messages, summary: Running) -> None:
    """Folds consumed messages into the running batch."""
    counts, ranges = summary.minute_counts, summary.ranges
    for message in messages:
        if message.error():
            if message.error().code() != KafkaError._PARTITION_EOF:
                raise RuntimeError(f"Kafka: {message.error()}")
            continue
        minute, is_error, reason = pyparse.classify(message.value())
        summary.records += 1
        if reason is not None:
            summary.rejected += 1
        elif is_error:
            summary.errors += 1
            counts[minute] = counts.get(minute, 0) + 1
        partition, offset = offsets.TopicPartition(message.topic(), message.partition()), message.offset()
        low, high = ranges.get(partition, (offset, offset))
        ranges[partition] = (min(low, offset), max(high, offset))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--until", required=True, help="end offsets as JSON {partition: next offset}")
    parser.add_argument("--batch", type=int, default=500000, help="records per MySQL transaction")
    args = parser.parse_args()
    until = offsets.of_topic(cfg_topic := load_config([], os.environ).kafka_topic,
                             {int(p): o for p, o in json.loads(args.until).items()})
    cfg = load_config([], os.environ)
    conn = mysql.connect(cfg)
    job_store = store.Store(conn, cfg.job_name, [cfg_topic], cfg.counts_table)
    job_store.acquire_lease(f"{socket.gethostname()} pid {os.getpid()} bench.pyconsumer")
    stored = job_store.load_offsets()
    consumer = Consumer({"bootstrap.servers": cfg.kafka_bootstrap_servers, "group.id": cfg.job_name,
                         "enable.auto.commit": False, "enable.partition.eof": True})
    consumer.assign([TopicPartition(tp.topic, tp.partition, stored.get(tp, OFFSET_BEGINNING)) for tp in sorted(until)])
    first = None
    commit_ms: list[float] = []
    summary = Running()
    started = time.time()
    while stored != until:
        messages = consumer.consume(num_messages=10000, timeout=1.0)
        if first is None and messages:
            first = time.time()
        parse_batch(messages, summary)
        after = offsets.advance(stored, summary.ranges)
        if summary.records >= args.batch or (after == until and summary.records):
            begin = time.monotonic()
            job_store.commit_batch(summary.summary(), stored, after, {cfg_topic: "bench"})
            commit_ms.append((time.monotonic() - begin) * 1000)
            stored, summary = after, Running()
    done = time.time()
    consumer.close()
    conn.close()
    print(json.dumps({"started": started, "first_record": first, "done": done, "batches": len(commit_ms),
                      "commit_ms": commit_ms, "cpu_s": time.process_time()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
