"""make bench's scale phase (s): how the job's cost grows with what it knows rather than what a
batch holds, each figure beside its baseline measured in the same run.

Partitions of one topic: the same corpus (--scale-lines app lines, the corpus's seed and span) on
topics of PARTITIONS partitions, each read by a fresh job to its end and checked exact: catch-up
records/s, first and warm batch, commit, start to first commit, the driver's resident memory. The
ratios are each size's records/s over the 4-partition topic's (results-scale.json `ratios`,
higher is better). Writes RESULTS-scale.md and results-scale.json (bench/ with --out bench)."""

import json
from pathlib import Path

from bench import corpus as corpora
from bench import phases

PARTITIONS = (4, 64, 512, 2048)
BASELINE = PARTITIONS[0]
GOAL = 0.8  # records/s at 512 and 2 048 partitions >= 0.8 x at 4 (a per-record cost <= 1.25 x)
GOAL_SIZES = (512, 2048)
DEFAULT_LINES = 2_000_000


def partitions_curve(args, cache: Path, run_dir: Path, log) -> dict:
    """One catch-up per topic size (--scale-partitions), the first the baseline, the corpus the same on each."""
    found = {}
    for partitions in (int(size) for size in args.scale_partitions.split(",")):
        data = corpora.ensure(args.scale_lines, partitions, args.seed, args.minutes, cache, log)
        figures = phases.spark_catch_up(data, run_dir, f"s-partitions-{partitions}")
        found[str(partitions)] = figures
        log(f"(s) {partitions} partitions: {figures['records_per_s']:,.0f} records/s, first commit after "
            f"{figures['first_commit_s']:.1f} s, warm batch p50 {figures['warm_batch_ms_p50']:.0f} ms, "
            f"commit p50 {figures['commit_ms_p50']:.0f} ms")
    return found


def scale_phase(args, cache: Path, run_dir: Path, log) -> dict:
    return {"lines": args.scale_lines, "partitions": partitions_curve(args, cache, run_dir, log)}


def ratios(found: dict) -> dict[str, float]:
    """Each curve's sizes over its baseline, records/s (higher is better)."""
    curve = found.get("partitions", {})
    if not curve:
        return {}
    baseline, base = next(iter(curve.items()))
    return {f"partitions_{size}_over_{baseline}": figures["records_per_s"] / base["records_per_s"]
            for size, figures in curve.items() if size != baseline}


def markdown(found: dict, meta: dict) -> str:
    curve, measured = found["partitions"], ratios(found)
    baseline = next(iter(curve), str(BASELINE))
    lines = [f"# Scale ({meta['date']})", "", f"`{meta['command']}` on {meta['machine']}.", "",
             f"## Partitions of one topic ({found['lines']:,} app lines, the same corpus on each)", "",
             f"| partitions | records/s | over {baseline} | start -> first commit s | first batch ms | warm batch p50 ms | "
             "commit p50 ms | batches | peak RSS JVM / Python MB |", "|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for size, f in curve.items():
        ratio = measured.get(f"partitions_{size}_over_{baseline}")
        lines.append(f"| {int(size):,} | {f['records_per_s']:,.0f} | {'1' if ratio is None else f'{ratio:.2f}'} | "
                     f"{f['first_commit_s']:.1f} | {f['first_batch_ms']:,} | {f['warm_batch_ms_p50']:,.0f} | "
                     f"{f['commit_ms_p50']:,.0f} | {f['batches']} | {f['peak_rss_mb']['jvm']:,.0f} / "
                     f"{f['peak_rss_mb']['python']:,.0f} |")
    lines += ["", "| goal | measured | met |", "|---|---|---|"]
    for size in GOAL_SIZES:
        value = measured.get(f"partitions_{size}_over_{baseline}")
        if value is not None:
            lines.append(f"| records/s at {size:,} partitions >= {GOAL} x at {baseline} | {value:.2f} x | "
                         f"{'yes' if value >= GOAL else 'no'} |")
    return "\n".join(lines) + "\n"


def write(found: dict, meta: dict, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "results-scale.json").write_text(json.dumps({"meta": meta, "s_scale": found, "ratios": ratios(found)},
                                                       indent=2, sort_keys=True) + "\n")
    (out / "RESULTS-scale.md").write_text(markdown(found, meta))
