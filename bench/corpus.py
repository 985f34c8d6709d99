"""The bench corpus: deterministic, seeded log lines of ~100 bytes, ~15 % ERROR, ~5 % malformed,
spread over a few hours of minutes, with the expected per-minute counts computed here in plain
Python (never with the job's parser), so every variant's error_log can be checked against it."""

import json
import random
from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from errorcount.tools import kafka_admin, produce

CORPUS_VERSION = 1  # bump when the generator changes: the topic name carries it
START = datetime(2026, 1, 5, 6, 0)
SEPARATORS = (" ", "  ", "\t")
MESSAGES = ["request {n} failed after {ms} ms: upstream timeout", "user {n} logged in from 10.0.{a}.{b}",
            "cache miss for key item:{n}, loading from db in {ms} ms", "GET /api/v1/items/{n} 200 {ms}ms",
            "payment {n} declined: card expired", "queue depth {n} above threshold {ms}"]


@dataclass(frozen=True)
class Corpus:
    topic: str
    lines: int
    partitions: int
    expected: dict[str, int]  # 'YYYY-MM-DD HH:MM:00' -> ERROR lines
    rejected: int


class Generator:
    """Seeded line generator: date/time text is cached per (minute, zone), since every zone
    offset is whole minutes and leaves the seconds alone."""

    def __init__(self, seed: int, minutes: int):
        self.rng = random.Random(seed)
        self.minutes = minutes
        self.heads: dict[tuple[int, str | None], tuple[str, str]] = {}
        self.keys = [(START + timedelta(minutes=m)).strftime("%Y-%m-%d %H:%M:00") for m in range(minutes)]

    def head(self, minute: int, zone: str | None) -> tuple[str, str]:
        cached = self.heads.get((minute, zone))
        if cached is None:
            offset = timedelta(0)
            if zone and zone != "Z":
                digits = zone[1:].replace(":", "")
                offset = (-1 if zone[0] == "-" else 1) * timedelta(hours=int(digits[:2]), minutes=int(digits[2:]))
            local = START + timedelta(minutes=minute) + offset
            cached = self.heads[(minute, zone)] = (local.strftime("%Y-%m-%d"), local.strftime("%H:%M"))
        return cached

    def event(self) -> tuple[bytes | None, str | None, bool]:
        """(value, the UTC minute it must be counted under if it is an ERROR line, rejected?)."""
        rng = self.rng
        roll = rng.random()
        if roll < 0.05:
            return rng.choice(produce.BAD_VALUES), None, True
        is_error = roll < 0.20
        minute, zone = rng.randrange(self.minutes), rng.choice(produce.ZONES)
        date, hm = self.head(minute, zone)
        level = rng.choice(produce.LEVELS_ERROR if is_error else produce.LEVELS_OTHER)
        fraction = rng.choice(("", ".%03d", ",%06d", ".123456789"))
        if "%" in fraction:
            fraction %= rng.randrange(1000)
        message = rng.choice(MESSAGES).format(n=rng.randrange(10**7), ms=rng.randrange(5000), a=rng.randrange(256),
                                              b=rng.randrange(256))
        text = (f"{date}{rng.choice(' T')}{hm}:{rng.randrange(60):02d}{fraction}{zone or ''}{rng.choice(SEPARATORS)}"
                f"{level} [web-{rng.randrange(32):02d} worker-{rng.randrange(64):02d}] {message}")
        return text.encode(), self.keys[minute] if is_error else None, False


def write(topic: str, partitions: int, lines: int, seed: int, minutes: int) -> tuple[dict[str, int], int]:
    """Generates and writes the corpus round-robin over the partitions, in order (idempotent
    producer); returns (expected counts, rejected lines)."""
    generator = Generator(seed, minutes)
    counts: Counter[str] = Counter()
    rejected = 0
    writer = produce.Writer(topic, partitions, **{"linger.ms": 50, "batch.num.messages": 10000,
                                                  "queue.buffering.max.messages": 500000})
    for index in range(lines):
        value, minute, bad = generator.event()
        if minute:
            counts[minute] += 1
        rejected += bad
        writer.send(value, index)
    writer.flush(120)
    return dict(counts), rejected


def topic_name(lines: int, partitions: int, seed: int) -> str:
    return f"bench-v{CORPUS_VERSION}-{lines}-p{partitions}-s{seed}"


def ensure(lines: int, partitions: int, seed: int, minutes: int, cache: Path, log) -> Corpus:
    """The preloaded topic, written once per (lines, partitions, seed) and reused by later runs;
    its expected counts are cached next to it. A topic holding anything else is recreated."""
    topic = topic_name(lines, partitions, seed)
    cached = cache / f"{topic}.json"
    ends = kafka_admin.end_offsets(topic) if kafka_admin.partition_count(topic) else {}
    if cached.exists() and sum(ends.values()) == lines and len(ends) == partitions:
        data = json.loads(cached.read_text())
        log(f"corpus: reusing topic {topic} ({lines} lines)")
        return Corpus(topic, lines, partitions, data["expected"], data["rejected"])
    if ends:
        kafka_admin.delete_topic(topic)
    log(f"corpus: generating {lines} lines (seed {seed}, {minutes} minutes) into {topic}")
    kafka_admin.create_topic(topic, partitions)
    expected, rejected = write(topic, partitions, lines, seed, minutes)
    cache.mkdir(parents=True, exist_ok=True)
    cached.write_text(json.dumps({"expected": expected, "rejected": rejected}))
    return Corpus(topic, lines, partitions, expected, rejected)
