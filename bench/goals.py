"""What a bench run is judged by: the ratios between its variants (results.json `ratios`) and the
goals they meet (RESULTS.md's goals table); bench/report.py writes both."""


def ratio(results: dict, top: str, bottom: str) -> float | None:
    a, b = results.get(top), results.get(bottom)
    return a["records_per_s"] / b["records_per_s"] if a and b else None


def ratios(results: dict) -> dict[str, float | None]:
    """The ratios a run is judged by (results.json's `ratios`): (b) warm over (a'), (b) over (c),
    (d) and (a)."""
    job, source = results.get("b_job"), results.get("a2_spark_source")
    warm = job.get("warm_records_per_s") if job else None
    source_warm = source.get("warm_records_per_s") if source else None
    return {"b_warm_over_spark_source": warm / source_warm if warm and source_warm else None,
            "b_over_python": ratio(results, "b_job", "c_python"),
            "b_over_udf": ratio(results, "b_job", "d_naive_udf"),
            "b_over_kafka": ratio(results, "b_job", "a_ceiling"),
            **{f"{name}_over_app": format_ratio(results, name) for name in FORMAT_GOALS},
            **{f"otlp_{encoding}_over_app": otlp_ratio(results, encoding) for encoding in ("proto", "json")},
            **{f"{name}_group_by_over_plain": f["ratio"] for name, f in (results.get("x_group_by") or {}).items()}}


FORMAT_GOALS = {"access": 0.8, "json": 0.5}  # the least records/s of each format, x the app rate of the same run


OTLP_GOAL = 0.7  # the least log records/s of each OTLP encoding, x the app corpus's records/s of the same run


def otlp_ratio(results: dict, encoding: str) -> float | None:
    """(o): log records/s of the app corpus's lines as OTLP requests over (b)'s records/s (one line each)."""
    app, other = results.get("b_job"), (results.get("o_otlp") or {}).get(encoding)
    return other["log_records_per_s"] / app["records_per_s"] if app and other else None


def format_ratio(results: dict, name: str) -> float | None:
    app, other = results.get("b_job"), results.get("formats", {}).get(name)
    return other["records_per_s"] / app["records_per_s"] if app and other else None


def goals(results: dict) -> list[tuple[str, str, bool | None]]:
    """(goal, measured, met?) for each goal of the bench."""
    def fmt(value, unit=""):
        return "n/a" if value is None else f"{value:.2f}{unit}"

    found, measured = [], ratios(results)
    for key, need, label in (("b_warm_over_spark_source", 0.7, "(b) warm >= 0.7 x (a') Spark's Kafka source alone, warm"),
                             ("b_over_python", 4, "(b) >= 4 x (c)"), ("b_over_udf", 2.5, "(b) >= 2.5 x (d)")):
        value = measured[key]
        found.append((label, fmt(value, " x"), None if value is None else value >= need))
    for name, need in FORMAT_GOALS.items():
        value = measured[f"{name}_over_app"]
        if value is not None:
            found.append((f"LOG_FORMAT={name}: (b) >= {need} x the app format's (b), records/s", fmt(value, " x"),
                          value >= need))
    for encoding in ("proto", "json"):
        value = measured[f"otlp_{encoding}_over_app"]
        if value is not None:
            found.append((f"LOG_FORMAT=otlp, otlp_{encoding}: (b) >= {OTLP_GOAL} x the app format's (b), log records/s",
                          fmt(value, " x"), value >= OTLP_GOAL))
    steady, soak = results.get("e_steady"), results.get("f_soak")
    if steady:
        over = steady["latency_s"]["p99"] - steady["trigger_interval_s"]
        found.append((f"p99 latency minus the trigger at a fixed {steady['target_rate']:,.0f} records/s <= 0.5 s",
                      fmt(over, " s"), over <= 0.5))
    idle = (steady or {}).get("idle")
    if idle and idle.get("cpu_ms_per_trigger") is not None:
        cost = idle["cpu_ms_per_trigger"]
        found.append(("empty-batch overhead <= 150 ms (an empty trigger: no batch runs; driver CPU per trigger)",
                      fmt(cost, " ms") + ("" if idle["batches_run"] == 0 else f", {idle['batches_run']} batches ran"),
                      cost <= 150 and idle["batches_run"] == 0))
    if soak:
        cycle = soak["batch_cycle_ms"]["p50"]
        found.append((f"tiny-batch cycle p50 <= 100 ms ({soak['records_per_batch']:.0f} records)", fmt(cycle, " ms"),
                      cycle <= 100))
        rss = soak["rss"]
        slope = rss["slope_mb_per_100_batches"]
        found.append((f"driver RSS: no growth trend over batches {rss.get('from_batch')} to "
                      f"{rss.get('to_batch')} of {soak['batches']} (slope < +5 MB per 100 batches)",
                      fmt(slope, " MB/100 batches"), None if slope is None else slope < 5))
    cost = watch_cost(results.get("w_watch_cost"))
    if cost:
        found.append(("the watch (metrics scraped every second, offsets mirror) adds no measurable time to a tiny "
                      "batch: cycle p50 on minus off within the runs' own spread (at least 5 %)",
                      f"{cost['added_ms']:+.0f} ms (noise {cost['noise_ms']:.0f} ms)", cost["added_ms"] <= cost["noise_ms"]))
    return found


def watch_cost(figures: dict | None) -> dict | None:
    """(w): the mean cycle p50 with the watch on minus off, and the noise it is judged against:
    the larger of the spread between runs of the same state and 5 % of the off figure."""
    if not figures or not figures["off"] or not figures["on"]:
        return None
    p50 = {state: [run["cycle_p50_ms"] for run in figures[state]] for state in ("off", "on")}
    mean = {state: sum(values) / len(values) for state, values in p50.items()}
    spread = max(max(values) - min(values) for values in p50.values())
    return {"added_ms": mean["on"] - mean["off"], "noise_ms": max(spread, 0.05 * mean["off"]), "p50": p50}
