"""make bench's topics phase (t): (b) over TOPICS topics of PARTITIONS partitions each (the corpus
cut in TOPICS, a quarter of the lines each, read through one KAFKA_TOPIC list) against (b) on the
single corpus topic, alternating, in the same run; every count checked exact."""

from collections import Counter
from pathlib import Path

from bench import corpus as corpora
from bench import phases

TOPICS = 4
GOAL = 0.9    # (b) over TOPICS topics >= 0.9 x (b) on one topic
ROUNDS = 3    # one topic, then the topics, alternating: the best of each (as (x): rounds of one run differ)


def split_corpus(args, cache: Path, log) -> corpora.Corpus:
    """TOPICS corpus topics of lines / TOPICS records each (their own seeds), as one Corpus whose
    topic is their KAFKA_TOPIC list and whose expectation is the sum of theirs."""
    parts = [corpora.ensure(args.lines // TOPICS, args.partitions, args.seed + 100 + number, args.minutes, cache, log)
             for number in range(TOPICS)]
    expected: Counter = Counter()
    for part in parts:
        expected.update(part.expected)
    return corpora.Corpus(",".join(part.topic for part in parts), sum(part.lines for part in parts), args.partitions,
                          dict(expected), sum(part.rejected for part in parts), sum(part.value_bytes for part in parts))


def topics_phase(args, single: corpora.Corpus, cache: Path, run_dir: Path, log) -> dict:
    several = split_corpus(args, cache, log)
    one, many = [], []
    for round_ in range(ROUNDS):
        one.append(phases.spark_catch_up(single, run_dir, f"t-one-{round_}"))
        many.append(phases.spark_catch_up(several, run_dir, f"t-topics-{round_}"))
    best = max(one, key=lambda f: f["records_per_s"]), max(many, key=lambda f: f["records_per_s"])
    return {"topics": TOPICS, "partitions": args.partitions, "one": best[0], "many": best[1],
            "ratio": best[1]["records_per_s"] / best[0]["records_per_s"],
            "rounds": [[o["records_per_s"], m["records_per_s"]] for o, m in zip(one, many, strict=True)]}


def markdown_lines(results: dict) -> list[str]:
    found = results.get("t_topics")
    if not found:
        return []
    rounds = "; ".join(f"{o:,.0f}, {m:,.0f}" for o, m in found["rounds"])
    return [f"Topics: (b) over {found['topics']} topics x {found['partitions']} partitions (the corpus's kind, a "
            f"quarter of the lines each, one KAFKA_TOPIC list) against (b) on the one corpus topic, alternating "
            f"{ROUNDS} rounds in this run (best of each), every count exact.", "",
            "| one topic records/s | topics records/s | topics / one | rounds (one, topics) |", "|---:|---:|---:|---|",
            f"| {found['one']['records_per_s']:,.0f} | {found['many']['records_per_s']:,.0f} | {found['ratio']:.2f} | "
            f"{rounds} |", ""]


def goals(results: dict) -> list[tuple[str, str, bool | None]]:
    found = results.get("t_topics")
    if not found:
        return []
    return [(f"(b) over {found['topics']} topics x {found['partitions']} partitions >= {GOAL} x one topic",
             f"{found['ratio']:.2f} x", found["ratio"] >= GOAL)]
