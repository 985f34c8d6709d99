"""bench/results.json and bench/RESULTS.md from one run's figures, and the goals they meet."""

import json
from pathlib import Path

from bench import dimensions, json_read, recount, topics
from bench import lines as bench_lines
from bench.goals import goals, ratios, watch_cost


def watch_cost_lines(figures: dict | None) -> list[str]:
    cost = watch_cost(figures)
    if not cost:
        return []
    runs = lambda state: ", ".join(f"{ms:.0f}" for ms in cost["p50"][state])  # noqa: E731
    return [f"The watch's cost: soaks of {figures['batches']} tiny batches, alternating, with the watch off "
            f"(METRICS_PORT=0, KAFKA_LAG_GROUP empty) and on (the metrics endpoint scraped every second, the "
            f"offsets mirror): batch cycle p50 off {runs('off')} ms, on {runs('on')} ms; on minus off "
            f"{cost['added_ms']:+.0f} ms. The lag aggregate is part of the job's one Spark job in both.", ""]


def row(name: str, figures: dict | None, job_rate: float | None) -> str:
    if not figures:
        return f"| {name} | not run | | | | | | | | |"
    rate = figures["records_per_s"]
    versus = f"{job_rate / rate:.2f} x" if job_rate else ""
    rss = figures.get("peak_rss_mb")
    rss = f"{rss['jvm'] + rss['python']:.0f}" if isinstance(rss, dict) else (f"{rss:.0f}" if rss else "")
    cell = lambda key, fmt: fmt.format(figures[key]) if figures.get(key) is not None else ""  # noqa: E731
    steal = figures.get("cpu_steal_share")
    return (f"| {name} | {rate:,.0f} | {versus} | {cell('startup_s', '{:.1f}')} | {cell('batches', '{}')} | "
            f"{cell('mean_batch_ms', '{:.0f}')} | {cell('mean_commit_ms', '{:.0f}')} | {rss} | "
            f"{cell('cpu_s', '{:.0f}')} | {'' if steal is None else f'{steal:.0%}'} |")


def markdown(results: dict) -> str:
    meta = results["meta"]
    lines = [f"# Bench results ({meta['date']})", "",
             f"`{meta['command']}` on {meta['machine']}.", ""] + catch_up_lines(results)
    steady = results.get("e_steady")
    if steady:
        lat = steady["latency_s"]
        lines += [f"(e) Steady state: {steady['achieved_rate']:,.0f} records/s (fixed target {steady['target_rate']:,.0f}) "
                  f"for {steady['seconds']:.0f} s "
                  f"after a {steady['warm_up_s']} s warm-up, trigger {steady['trigger_interval_s']:g} s, "
                  f"{steady['measured_records']:,} records measured: latency from Kafka timestamp to commit "
                  f"p50 {lat['p50']:.2f} s, p95 {lat['p95']:.2f} s, p99 {lat['p99']:.2f} s, max {lat['max']:.2f} s; "
                  f"mean batch {steady['mean_batch_ms']:.0f} ms over {steady['batches']} batches; the producer, "
                  f"on the same 2 cores, used {steady.get('producer_cores', 0):.2f} cores.", ""]
        lines += idle_lines(steady.get("idle"), steady["trigger_interval_s"])
    soak = results.get("f_soak")
    if soak:
        rss = soak["rss"]
        lines += [f"Soak: {soak['batches']} tiny batches back to back ({soak['records_per_batch']:.0f} records each, "
                  f"trigger 0 s{', the watch on' if soak.get('watch', {}).get('watch') == 'on' else ''}): "
                  f"batch cycle p50 {soak['batch_cycle_ms']['p50']:.0f} ms, p95 "
                  f"{soak['batch_cycle_ms']['p95']:.0f} ms (inside foreachBatch p50 {soak['foreach_batch_ms_p50']} ms). "
                  f"Driver RSS (JVM + Python) from batch {rss.get('from_batch')} to {rss.get('to_batch')}: "
                  f"{rss.get('first_mb', 0):.0f} -> {rss.get('last_mb', 0):.0f} MB, peak {rss.get('peak_mb', 0):.0f} MB, "
                  f"trend {rss['slope_mb_per_100_batches'] or 0:+.2f} MB per 100 batches"
                  + (f" (from batch {rss['warm_up_from_batch']}, JIT warm-up included: "
                     f"{rss['slope_from_20pct']:+.2f})" if rss.get("slope_from_20pct") is not None else "") + ".", ""]
        lines += native_memory_lines(soak.get("jvm_native_memory_mb", {}), rss.get("from_batch"))
        if soak.get("spark_steps_ms_p50"):
            lines += ["Where a tiny batch's time goes, Spark's own timing (errorcount/observe/progress.py), p50 ms: "
                      + ", ".join(f"{name} {ms}" for name, ms in soak["spark_steps_ms_p50"].items())
                      + " (trigger_ms is the whole batch; foreach_batch_ms holds the Spark job and the MySQL "
                      "commit).", ""]
    lines += watch_cost_lines(results.get("w_watch_cost"))
    lines += profile_lines(results)
    lines += format_lines(results)
    lines += otlp_lines(results)
    lines += json_read.markdown_lines(results.get("j_json_read"))
    lines += dimensions.markdown_lines(results)
    lines += bench_lines.markdown_lines(results)
    lines += topics.markdown_lines(results)
    lines += recount.markdown_lines(results)
    lines += ["| goal | measured | met |", "|---|---:|:---:|"]
    lines += [f"| {goal} | {measured} | {'-' if met is None else ('yes' if met else '**no**')} |"
              for goal, measured, met in goals(results) + dimensions.goals(results) + bench_lines.goals(results)
              + topics.goals(results) + recount.goals(results)]
    return "\n".join(lines) + "\n"


CATCH_UP = (("(a) read ceiling: Kafka ConsumerPerformance", "a_ceiling"),
            ("(a') Spark's Kafka source alone (the job's query shape, counts only)", "a2_spark_source"),
            ("(b) this job, catch-up", "b_job"),
            ("(c) pure-Python consumer (confluent-kafka)", "c_python"),
            ("(d) naive PySpark job (Python UDF parse)", "d_naive_udf"))


def catch_up_lines(results: dict) -> list[str]:
    """The app corpus, when a phase that reads it ran (the catch-up variants (a) to (d), the recount),
    and the variants' table when one of them did; a partial run of other phases says nothing of it
    (those phases say which corpora they read)."""
    ran = any(results.get(key) for _name, key in CATCH_UP)
    if not ran and not results.get("r_recount"):
        return []
    meta = results["meta"]
    corpus = [f"Corpus: {meta['lines']:,} lines in topic `{meta['topic']}` ({meta['partitions']} partitions, "
              f"{meta['error_lines']:,} ERROR, {meta['rejected']:,} malformed). Every variant's `error_log` "
              "matched the corpus's expected counts exactly. CPU s: CPU time of the variant's processes "
              "(startup included); CPU steal: the share of the VM's CPU time the hypervisor gave to others "
              "during the run (wall-clock rates suffer when it is high).", ""]
    if not ran:
        return corpus
    job_rate = results.get("b_job", {}).get("records_per_s")
    return corpus + ["| variant | records/s | (b) is | startup s | batches | mean batch ms | mean commit ms "
                     "| peak RSS MB | CPU s | CPU steal |", "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
                     *(row(name, results.get(key), None if key == "b_job" else job_rate) for name, key in CATCH_UP), ""]


def idle_lines(idle: dict | None, trigger_s: float) -> list[str]:
    """The drained steady-state job with nothing to read: what an empty trigger costs."""
    if not idle or idle.get("cpu_ms_per_trigger") is None:
        return []
    return [f"Idle: after the drain, {idle['seconds']:.0f} s with no input at a {trigger_s:g} s trigger: "
            f"{idle['batches_run']} batches ran (Spark runs none for a trigger without new offsets); the driver "
            f"(JVM and Python, all threads) used {idle['driver_cores']:.3f} cores, "
            f"{idle['cpu_ms_per_trigger']:.1f} ms of CPU per empty trigger.", ""]


def native_memory_lines(memory: dict, from_batch) -> list[str]:
    """The soak's JVM memory by NMT category: where a growth of the driver's RSS comes from."""
    start, end = memory.get("from") or {}, memory.get("to") or {}
    moved = [name for name in start if name in end and (name == "Java Heap" or abs(end[name] - start[name]) >= 2)]
    if not moved:
        return []
    return [f"JVM memory by Native Memory Tracking category (committed MB) from batch {from_batch} to the "
            "soak's end: " + ", ".join(f"{name} {start[name]} -> {end[name]}" for name in moved) + ".", ""]


def profile_lines(results: dict) -> list[str]:
    """Where (b)'s time goes: per batch from the job's log, per record from the profile run."""
    job, profile = results.get("b_job"), results.get("profile")
    lines = []
    if job and "mean_count_ms" in job:
        lines += [f"Per batch in (b) (mean of {job['batches']}): Spark job (count and dead letters) "
                  f"{job['mean_count_ms']:.0f} ms, MySQL commit {job['mean_commit_ms']:.0f} ms, Spark between "
                  f"batches {job['mean_between_batches_ms']:.0f} ms; the first batch (code generation, JIT warm-up) "
                  f"took {job['first_batch_ms'] / 1000:.1f} s."]
        if job.get("warm_records_per_s"):
            lines[-1] += (f" Once warm, over the last {job['warm_batches']} batches, the job read "
                          f"{job['warm_records_per_s']:,.0f} records/s: the rate a longer catch-up settles at.")
        lines.append("")
    if profile:
        lines += profile_table(profile, "Profile: the job's steps (the read, the classifier, "
                                            "the one pass; the aggregate path it replaced)")
    return lines


def profile_table(profile: dict, title: str) -> list[str]:
    return [f"{title}, batch reads of {profile['records']:,} corpus records, warm (best of 3), {profile['cores']} cores:",
            "", "| step | s | records/s | core-us per record |", "|---|---:|---:|---:|",
            *[f"| {s['step']} | {s['seconds']:.2f} | {s['records_per_s']:,.0f} | {s['core_us_per_record']:.1f} |"
              for s in profile["steps"]], ""]


def format_lines(results: dict) -> list[str]:
    """(b) per LOG_FORMAT, each on its own corpus of as many records, in records/s and MB/s."""
    formats, app = results.get("formats"), results.get("b_job")
    if not formats or not app:
        return []
    lines = ["Per LOG_FORMAT: (b) on a corpus of each format (errorcount/tools/samples.py for access and json), "
             "as many records, every count exact; app is (b) above. MB/s: record values read per second.", "",
             "| format | records/s | MB/s | mean value bytes | warm records/s | x app | first batch s | settings |",
             "|---|---:|---:|---:|---:|---:|---:|---|"]
    for name, figures in (("app", app), *formats.items()):
        size = figures.get("value_bytes", 0) / results["meta"]["lines"]
        settings = " ".join(f"{k}={v}" for k, v in figures.get("settings", {"LOG_FORMAT": "app"}).items())
        warm = figures.get("warm_records_per_s")
        lines.append(f"| {name} | {figures['records_per_s']:,.0f} | {figures['records_per_s'] * size / 1e6:.1f} | "
                     f"{size:.0f} | {'' if warm is None else f'{warm:,.0f}'} | "
                     f"{figures['records_per_s'] / app['records_per_s']:.2f} | {figures['first_batch_ms'] / 1000:.1f} | "
                     f"{settings} |")
    lines.append("")
    for name, figures in formats.items():
        lines += profile_table(figures["profile"], f"Profile of LOG_FORMAT={name}")
    return lines


def otlp_lines(results: dict) -> list[str]:
    """(o): the app corpus's log records as OTLP requests, per encoding, in log records/s."""
    found, app = results.get("o_otlp"), results.get("b_job")
    if not found or not app:
        return []
    lines = ["LOG_FORMAT=otlp (bench/otlp.py): the app corpus's lines as log records, 100 per export request, "
             "every count exact; log records/s against (b)'s records/s (one line per record).", "",
             "| encoding | log records/s | requests/s | MB/s | x app | first batch s |", "|---|---:|---:|---:|---:|---:|"]
    encodings = {encoding: figures for encoding, figures in found.items() if encoding != "decode"}
    for encoding, figures in encodings.items():
        mb = figures["value_bytes"] / figures["catch_up_s"] / 1e6
        lines.append(f"| otlp_{encoding} | {figures['log_records_per_s']:,.0f} | {figures['records_per_s']:,.0f} | {mb:.1f} | "
                     f"{figures['log_records_per_s'] / app['records_per_s']:.2f} | {figures['first_batch_ms'] / 1000:.1f} |")
    lines.append("")
    decode = found.get("decode")
    if decode:
        lines += [f"Reading otlp_proto alone (bench/java/OtlpDecode.java, {decode['log_records']:,} log records, best of 7 "
                  f"rounds taking turns): the classifier's reader {decode['ours_ns']:.0f} ns per log record, "
                  f"protobuf-java's generated classes {decode['protobuf_java_ns']:.0f} ns, the whole UDF "
                  f"{decode['udf_ns']:.0f} ns.", ""]
    for encoding, figures in encodings.items():
        lines += profile_table(figures["profile"], f"Profile of otlp_{encoding} (per request of 100 log records)")
    return lines


def ratios_text(results: dict) -> str:
    return "ratios: " + "   ".join(f"{key} = {'n/a' if value is None else f'{value:.2f}'}"
                                   for key, value in ratios(results).items())


def write(results: dict, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    results["ratios"] = ratios(results)
    write_json(results, out / "results.json")
    (out / "RESULTS.md").write_text(markdown(results))


def write_json(results: dict, path: Path) -> None:
    """The results as JSON: a full run's results.json, and after each phase the run's
    results-partial.json in its logs directory, so a run stopped part way (a slow host, a
    session's end) keeps the figures of the phases it finished."""
    path.write_text(json.dumps(results, indent=2, sort_keys=True) + "\n")
