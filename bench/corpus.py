"""The bench corpus: deterministic, seeded log lines of ~100 bytes, ~15 % ERROR, ~5 % malformed,
spread over a few hours of minutes, with the expected per-minute counts computed here in plain
Python (never with the job's parser), so every variant's error_log can be checked against it.
The access and json corpora come from errorcount/tools/samples.py (expectations computed there)."""

import json
import random
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

from errorcount.tools import kafka_admin, produce, samples

CORPUS_VERSION = 2  # bump when the generator changes: the topic name carries it
START = datetime(2026, 1, 5, 6, 0)
GROUP_BY = {"access": "path,status", "json": "field:service.name,level"}  # the dimensions (x) counts by
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
    value_bytes: int          # the records' values, summed
    log_format: str = "app"
    # access and json: {GROUP_BY: {'minute<US>value<US>value': ERROR lines}} of bench/dimensions.py's GROUP_BY
    expected_series: dict[str, dict[str, int]] = field(default_factory=dict)
    expected_lines: dict[str, int] = field(default_factory=dict)  # 'YYYY-MM-DD HH:MM:00' -> lines (COUNT_LINES)
    ordered: bool = False  # written in time order (a batch spans a few minutes), not spread over every minute


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

    def event(self) -> tuple[bytes | None, str | None, bool, str | None]:
        """(value, the UTC minute it must be counted under if it is an ERROR line, rejected?, the
        UTC minute of the line, error or not: None for a reject)."""
        rng = self.rng
        roll = rng.random()
        if roll < 0.05:
            return rng.choice(samples.BAD_VALUES), None, True, None
        is_error = roll < 0.20
        minute, zone = rng.randrange(self.minutes), rng.choice(samples.ZONES)
        date, hm = self.head(minute, zone)
        level = rng.choice(samples.LEVELS_ERROR if is_error else samples.LEVELS_OTHER)
        fraction = rng.choice(("", ".%03d", ",%06d", ".123456789"))
        if "%" in fraction:
            fraction %= rng.randrange(1000)
        message = rng.choice(MESSAGES).format(n=rng.randrange(10**7), ms=rng.randrange(5000), a=rng.randrange(256),
                                              b=rng.randrange(256))
        text = (f"{date}{rng.choice(' T')}{hm}:{rng.randrange(60):02d}{fraction}{zone or ''}{rng.choice(SEPARATORS)}"
                f"{level} [web-{rng.randrange(32):02d} worker-{rng.randrange(64):02d}] {message}")
        return text.encode(), self.keys[minute] if is_error else None, False, self.keys[minute]


def write(topic: str, partitions: int, lines: int, seed: int, minutes: int, log_format: str = "app",
          ordered: bool = False) -> dict:
    """Generates and writes the corpus round-robin over the partitions, in order (idempotent
    producer); returns its expected counts, rejected records and value bytes. `ordered`: the same
    events sorted by their minute (a reject stays after the line generated before it), as a topic
    of logs shipped as they happen holds them; the expectations do not depend on the order."""
    series: Counter[str] = Counter()
    names = tuple(GROUP_BY.get(log_format, "").split(","))
    if log_format == "app":
        events = Generator(seed, minutes).event
    else:
        rng, make = random.Random(seed), samples.FORMATS[log_format].make

        def events():
            event = make(rng, START, minutes)
            if event.error_minute:
                labels = dict(event.labels)
                series["\x1f".join((event.error_minute, *(labels[name] for name in names)))] += 1
            return event.value, event.error_minute, event.rejected, event.minute
    counts: Counter[str] = Counter()
    lines_per_minute: Counter[str] = Counter()
    rejected = size = 0
    writer = produce.Writer(topic, partitions, **{"linger.ms": 50, "batch.num.messages": 10000,
                                                  "queue.buffering.max.messages": 500000})
    generated = (events() for _ in range(lines))
    if ordered:
        generated = iter(in_time_order(list(generated)))
    for index, (value, minute, bad, line_minute) in enumerate(generated):
        if minute:
            counts[minute] += 1
        if line_minute:
            lines_per_minute[line_minute] += 1
        rejected += bad
        size += len(value or b"")
        writer.send(value, index)
    writer.flush(120)
    return {"expected": dict(counts), "rejected": rejected, "value_bytes": size, "expected_lines": dict(lines_per_minute),
            "expected_series": {GROUP_BY[log_format]: dict(series)} if log_format in GROUP_BY else {}}


def in_time_order(events: list[tuple]) -> list[tuple]:
    """Events (value, error minute, rejected, line minute) stably sorted by line minute; a reject
    (no minute) takes the minute of the line generated before it."""
    keyed, last = [], ""
    for event in events:
        last = event[3] or last
        keyed.append((last, event))
    keyed.sort(key=lambda pair: pair[0])
    return [event for _key, event in keyed]


def settings_of(log_format: str) -> dict[str, str]:
    """The job settings a corpus's expectations assume (the app corpus: the defaults)."""
    return {} if log_format == "app" else dict(samples.FORMATS[log_format].settings)


def topic_name(lines: int, partitions: int, seed: int, log_format: str = "app", ordered: bool = False) -> str:
    kind = ("" if log_format == "app" else f"{log_format}-") + ("ordered-" if ordered else "")
    return f"bench-v{CORPUS_VERSION}-{kind}{lines}-p{partitions}-s{seed}"


def ensure(lines: int, partitions: int, seed: int, minutes: int, cache: Path, log, log_format: str = "app",
           ordered: bool = False) -> Corpus:
    """The preloaded topic, written once per (lines, partitions, seed, format) and reused by later
    runs; its expected counts are cached next to it. A topic holding anything else is recreated."""
    topic = topic_name(lines, partitions, seed, log_format, ordered)
    data = ensure_topic(topic, partitions, lines, cache, log, f"{lines} {log_format} records (seed {seed}, {minutes} minutes)",
                        lambda: write(topic, partitions, lines, seed, minutes, log_format, ordered))
    return Corpus(topic, lines, partitions, data["expected"], data["rejected"], data["value_bytes"], log_format,
                  data["expected_series"], data["expected_lines"], ordered)


def combined(parts: list[Corpus]) -> Corpus:
    """App corpora read together: the topic their comma-separated list, the expectation the sum of theirs."""
    expected: Counter[str] = Counter()
    for part in parts:
        expected.update(part.expected)
    return Corpus(",".join(part.topic for part in parts), sum(part.lines for part in parts), parts[0].partitions,
                  dict(expected), sum(part.rejected for part in parts), sum(part.value_bytes for part in parts))


def ensure_topic(topic: str, partitions: int, lines: int, cache: Path, log, what: str, generate) -> dict:
    """A topic of `lines` records over `partitions`, written by generate() (which returns its
    expectations) unless the topic already holds exactly that; the expectations are cached in
    cache/<topic>.json. A topic holding anything else is recreated."""
    cached = cache / f"{topic}.json"
    ends = kafka_admin.end_offsets(topic) if kafka_admin.partition_count(topic) else {}
    data = json.loads(cached.read_text()) if cached.exists() else {}
    if "expected_lines" in data and sum(ends.values()) == lines and len(ends) == partitions:
        log(f"corpus: reusing topic {topic} ({lines} records)")
        return data
    if ends:
        kafka_admin.delete_topic(topic)
    log(f"corpus: generating {what} into {topic}")
    kafka_admin.create_topic(topic, partitions)
    data = generate()
    cache.mkdir(parents=True, exist_ok=True)
    cached.write_text(json.dumps(data))
    return data
