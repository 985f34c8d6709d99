"""Writes sample log lines to Kafka, and knows by construction what the job must count.

Every generated event carries its expected outcome (the UTC minute it counts for if it is an
ERROR, or that it must be rejected), computed here with plain Python datetimes and never with
the job's parser, so tests can compare the job's output with an independent expectation.

    python -m errorcount.tools.produce --topic app-logs --lines 10000 [--format app|access|json]
        [--seed 7] [--minutes 30]

The samples and their expectations are errorcount/tools/samples.py; each format's expectations
assume the settings printed with them.
"""

import argparse
import random
import sys
import time
from collections.abc import Callable, Iterable
from datetime import UTC, datetime, timedelta

from confluent_kafka import Producer

from errorcount.tools import kafka_admin, samples
from errorcount.tools.events import Event


def send(producer: Producer, topic: str, value: bytes | None, partition: int, on_delivery=None,
         timestamp_ms: int = 0) -> None:
    """Queues one record (its Kafka timestamp `timestamp_ms`; 0: the time of sending); while the
    client's local queue is full, serves delivery reports until there is room (librdkafka raises
    BufferError rather than waiting)."""
    while True:
        try:
            producer.produce(topic, value=value, partition=partition, on_delivery=on_delivery, timestamp=timestamp_ms)
            return
        except BufferError:
            producer.poll(0.05)


class Writer:
    """The one Kafka writer of the tests, bench and chaos: an idempotent producer for many writes
    (creating one per write costs a PID handshake). Record i of a writer goes to partition
    i % partitions (counted from `first_index`), in order, so where each record lands is known."""

    def __init__(self, topic: str, partitions: int | None = None, *,
                 acked: Callable[[str, int, int], None] | None = None, **config):
        self.topic, self.acked = topic, acked  # acked(topic, partition, offset) as each ack arrives
        self.partitions = partitions or kafka_admin.partition_count(topic)
        if not self.partitions:
            raise RuntimeError(f"topic {topic} has no partitions in the broker's metadata; "
                               "create it first (errorcount-topic create-topic NAME PARTITIONS)")
        self.failures: list = []
        self.producer = Producer({"bootstrap.servers": kafka_admin.bootstrap(), "linger.ms": 20,
                                  "enable.idempotence": True, "message.max.bytes": 2_000_000, **config})

    def _delivered(self, error, message) -> None:
        if error is not None:
            self.failures.append(error)
        elif self.acked is not None:
            self.acked(message.topic(), message.partition(), message.offset())

    def send(self, value: bytes | None, index: int, timestamp_ms: int = 0) -> None:
        """Queues one record for partition index % partitions (call flush() to wait for it), with
        the Kafka timestamp `timestamp_ms` (0: the time of sending)."""
        send(self.producer, self.topic, value, index % self.partitions, self._delivered, timestamp_ms)
        if index % 1000 == 0:
            self.producer.poll(0)

    def flush(self, timeout: float = 60) -> None:
        """Waits until every queued record is acknowledged; raises if any delivery failed."""
        remaining = self.producer.flush(timeout)
        if self.failures or remaining:
            raise RuntimeError(f"{len(self.failures)} deliveries failed, {remaining} unsent: {self.failures[:3]}")

    def write(self, events: list[Event], first_index: int = 0) -> None:
        """Writes events in order (event i to partition (first_index + i) % partitions), acknowledged."""
        for index, event in enumerate(events, first_index):
            self.send(event.value, index)
        self.flush()

    def write_paced(self, values: Iterable[bytes | None], rate: float, stop: Callable[[], bool] = lambda: False,
                    first_index: int = 0) -> int:
        """Writes `rate` records/s from `values`, in order (as write() places them), until they run
        out or stop() is true; returns how many were written (all acknowledged). A value is taken
        from `values` only when it is sent, so a generator may record what it hands out."""
        source, started, sent = iter(values), time.monotonic(), 0
        while not stop():
            for _ in range(int(rate * (time.monotonic() - started)) - sent):
                value = next(source, _END)
                if value is _END:
                    self.flush()
                    return sent
                self.send(value, first_index + sent)  # type: ignore[arg-type]  # not _END: bytes or None
                sent += 1
            self.producer.poll(0)
            time.sleep(0.005)  # pacing the producer, not synchronising with anything
        self.flush()
        return sent


_END = object()


class TransactionalWriter(Writer):
    """A Writer whose records go out in Kafka transactions (as an exactly-once producer's do): the
    job must count a committed transaction's records once and an aborted or open one's never."""

    def __init__(self, topic: str, partitions: int | None = None, transactional_id: str | None = None):
        config: dict = {"transactional.id": transactional_id or f"errorcount-tx-{time.time_ns()}"}
        super().__init__(topic, partitions, **config)
        self.producer.init_transactions(30)

    def begin(self) -> None:
        self.producer.begin_transaction()

    def end(self, commit: bool) -> None:
        """Commits or aborts the open transaction, after every record of it was sent."""
        self.flush()
        if commit:
            self.producer.commit_transaction(30)
        else:
            self.producer.abort_transaction(30)


def produce(topic: str, events: list[Event], partitions: int | None = None) -> None:
    """Writes events round-robin over the topic's partitions, in order (see Writer.write)."""
    Writer(topic, partitions).write(events)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--topic", required=True)
    parser.add_argument("--lines", type=int, default=10000)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--minutes", type=int, default=30, help="spread events over the last N minutes")
    parser.add_argument("--format", default="app", choices=tuple(samples.FORMATS),
                        help="LOG_FORMAT of the records")
    args = parser.parse_args()
    start = datetime.now(UTC).replace(tzinfo=None, second=0, microsecond=0) - timedelta(minutes=args.minutes)
    seed = args.seed if args.seed is not None else random.randrange(2**32)
    events = samples.generate(args.format, args.lines, seed, start, args.minutes)
    produce(args.topic, events)
    counts = samples.expected_counts(events)
    settings = " ".join(f"{k}={v}" for k, v in samples.FORMATS[args.format].settings.items())
    logged = len(samples.outcomes(events))
    held = f" holding {logged} log records" if args.format == "otlp" else ""
    lines = sum(samples.expected_lines(events).values())
    print(f"produced {len(events)} {args.format} records{held} to {args.topic} (seed {seed}): {sum(counts.values())} errors "
          f"in {len(counts)} minutes, {lines} lines with COUNT_LINES, {samples.expected_rejects(events)} the job must reject; "
          f"counted so with {settings}; dated over the last {args.minutes} minutes, so a running job counts most of "
          "them as late (LATENESS)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
