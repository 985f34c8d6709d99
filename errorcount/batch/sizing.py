"""Whether MAX_OFFSETS_PER_TRIGGER suits the partitions a job reads (pure). Spark's Kafka reader
costs about READER_MS_PER_PARTITION of CPU for every partition a batch reads, whatever the batch
holds (docs/performance.md, "Scale": its per-partition code generation and consumer pool); a record
costs about RECORD_US. A catch-up's full batches spend reader / (reader + records) of their time
on that fixed cost, so a cap of few records per partition makes a backlog over many partitions
drain slowly. The job never raises the cap itself: it is the user's bound on a batch's memory."""

READER_MS_PER_PARTITION = 5.0  # measured here: ~1.2 s a batch over 2 cores at 512 partitions
RECORD_US = 4.0                # measured here: ~250 000 app lines/s per core
RECORDS_PER_PARTITION = 5_000  # where the reader's fixed cost falls to about a fifth of a full batch


def reader_share(max_offsets: int, partitions: int) -> float:
    """The share of a full batch's CPU spent on Spark's per-partition reader cost (estimated)."""
    reader = partitions * READER_MS_PER_PARTITION
    return reader / (reader + max_offsets * RECORD_US / 1000)


def batch_advice(max_offsets: int, partitions: int) -> str | None:
    """A warning when full batches of `max_offsets` records (0: no cap) over `partitions` would spend
    more than about a fifth of a catch-up on the reader's per-partition cost; None otherwise."""
    if not max_offsets or max_offsets >= partitions * RECORDS_PER_PARTITION:
        return None
    share = reader_share(max_offsets, partitions)
    return (f"MAX_OFFSETS_PER_TRIGGER={max_offsets} over {partitions} partitions reads at most "
            f"{max_offsets // partitions} records per partition in a batch, and Spark's Kafka reader costs about "
            f"{READER_MS_PER_PARTITION:g} ms of CPU per partition and batch whatever it holds: about {share:.0%} of a "
            f"catch-up's time (docs/performance.md, 'Scale'). Where the executors' memory allows, raise "
            f"MAX_OFFSETS_PER_TRIGGER toward {partitions * RECORDS_PER_PARTITION} ({RECORDS_PER_PARTITION} per partition); "
            f"a steady state pays about {partitions * READER_MS_PER_PARTITION / 1000:.1f} s of CPU per batch over the "
            "executors' cores, so keep TRIGGER_INTERVAL above that share")
