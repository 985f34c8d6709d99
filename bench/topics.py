"""make bench's topics phase (t): (b) over TOPICS topics of PARTITIONS partitions each (the corpus
cut in TOPICS, a quarter of the lines each, read through one KAFKA_TOPIC list) against (b) on the
single corpus topic, alternating, in the same run; every count checked exact."""

from pathlib import Path

from bench import corpus as corpora
from bench import phases

TOPICS = 4
GOAL = 0.9    # (b) over TOPICS topics >= 0.9 x (b) on one topic
ROUNDS = 3    # one topic, then the topics, alternating: the median of the rounds' ratios (as (x))


def split_corpus(args, cache: Path, log) -> corpora.Corpus:
    """TOPICS corpus topics of lines / TOPICS records each (their own seeds), as one Corpus whose
    topic is their KAFKA_TOPIC list and whose expectation is the sum of theirs."""
    parts = [corpora.ensure(args.lines // TOPICS, args.partitions, args.seed + 100 + number, args.minutes, cache, log)
             for number in range(TOPICS)]
    return corpora.combined(parts)

def topics_phase(args, single: corpora.Corpus, cache: Path, run_dir: Path, log) -> dict:
    several = split_corpus(args, cache, log)
    rounds = phases.alternating(ROUNDS, lambda round_: phases.spark_catch_up(single, run_dir, f"t-one-{round_}"),
                                lambda round_: phases.spark_catch_up(several, run_dir, f"t-topics-{round_}"))
    return {"topics": TOPICS, "partitions": args.partitions, "one": rounds["first"], "many": rounds["second"],
            "ratio": rounds["ratio"], "best_ratio": rounds["best_ratio"], "rounds": rounds["rounds"]}


def markdown_lines(results: dict) -> list[str]:
    found = results.get("t_topics")
    if not found:
        return []
    rounds = phases.rounds_cells(found)[1]
    return [f"Topics: (b) over {found['topics']} topics x {found['partitions']} partitions (the corpus's kind, a "
            f"quarter of the lines each, one KAFKA_TOPIC list) against (b) on the one corpus topic, alternating "
            f"{ROUNDS} rounds in this run (topics / one: the median of the rounds' own ratios), every count exact.", "",
            "| best one topic records/s | best topics records/s | topics / one (median of rounds) | best / best | "
            "rounds (one, topics) |", "|---:|---:|---:|---:|---|",
            f"| {found['one']['records_per_s']:,.0f} | {found['many']['records_per_s']:,.0f} | {found['ratio']:.2f} | "
            f"{found['best_ratio']:.2f} | {rounds} |", ""]


def goals(results: dict) -> list[tuple[str, str, bool | None]]:
    found = results.get("t_topics")
    if not found:
        return []
    return [(f"(b) over {found['topics']} topics x {found['partitions']} partitions >= {GOAL} x one topic",
             f"{found['ratio']:.2f} x", found["ratio"] >= GOAL)]
