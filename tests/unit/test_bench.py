"""The bench's pure helpers: log parsing, the memory trend and the goal checks."""

from bench import goals, phases, procs, report
from bench.steady import percentile, rss_trend
from errorcount.observe.progress import progress_line

LOG = """2026-11-22 09:27:34,505 INFO errorcount.batch.commit: batch 0: records=500000 errors=74863 rejected=25139 \
dead_letters=1000 minutes=180 offsets=0:125000,1:125000 plan=parallel count_ms=13770 commit_ms=30 batch_ms=17027
2026-11-22 09:27:35,000 INFO errorcount: something else, batch 1: records=7
garbage line
"""


def test_batch_logs_reads_the_batch_lines_only():
    (batch,) = procs.batch_logs(LOG)
    assert (batch.records, batch.count_ms, batch.commit_ms, batch.batch_ms) == (500000, 13770, 30, 17027)
    assert batch.done == 1795339654.505  # 2026-11-22 09:27:34.505 UTC


def test_warm_rate_is_the_second_half_from_the_end_of_the_batch_before():
    done_at = [10.0, 14.0, 16.0, 18.0, 19.0]  # a slow first batch, then faster ones
    batches = [procs.BatchLog(done, 1000, 0, 0, 0) for done in done_at]
    assert procs.warm_rate(batches) == (3000 / (19.0 - 14.0), 3)  # batches 2..4, from batch 1's end
    assert procs.warm_rate(batches[:1]) == (None, 1)
    job = {"batches": 5, "mean_count_ms": 1, "mean_commit_ms": 1, "mean_between_batches_ms": 1,
           "first_batch_ms": 4000, "warm_records_per_s": 600.0, "warm_batches": 3}
    assert "over the last 3 batches, the job read 600 records/s" in "\n".join(report.profile_lines({"b_job": job}))


def test_spark_steps_p50_reads_the_progress_lines_only():
    lines = [f"2026-11-22 09:27:3{i},000 INFO errorcount.observe.progress: " + progress_line(i, 5, {
        "triggerExecution": 300 + i, "addBatch": 200 + i, "walCommit": 10}) for i in range(5)]
    text = "\n".join([*lines, "2026-11-22 09:27:40,000 INFO errorcount: spark batch 9: rows=1 trigger_ms=1 broken"])
    steps = procs.spark_steps_p50(text, skip=1)  # batches 1..4 -> median is the upper middle, batch 3
    assert steps["trigger_ms"] == 303 and steps["foreach_batch_ms"] == 203
    assert steps["offset_log_ms"] == 10 and steps["commit_log_ms"] == 0  # a step Spark did not report
    assert procs.spark_steps_p50("no progress lines") == {}


def test_alternating_takes_the_median_of_the_rounds_own_ratios():
    # the host slows down over the run: the best of each would pair round 0's "without" with round 3's "with"
    without, with_ = [400, 380, 300, 250], [380, 340, 290, 240]
    calls = []

    def run(rates, side):
        def one(round_):
            calls.append((side, round_))
            return {"records_per_s": rates[round_]}
        return one

    found = phases.alternating(4, run(without, "a"), run(with_, "b"))
    assert calls == [("a", 0), ("b", 0), ("a", 1), ("b", 1), ("a", 2), ("b", 2), ("a", 3), ("b", 3)]
    # the rounds' ratios sorted: 240/250=0.96, 290/300=0.9667, 340/380=0.8947, 380/400=0.95 -> middle two 0.95, 0.96
    assert abs(found["ratio"] - (0.95 + 0.96) / 2) < 1e-12
    assert found["best_ratio"] == 380 / 400 and found["first"] == {"records_per_s": 400}
    assert found["rounds"] == [[400, 380], [380, 340], [300, 290], [250, 240]]
    assert phases.alternating(3, run(without, "a"), run(with_, "b"))["ratio"] == 380 / 400  # 0.8947, 0.95, 0.9667


def test_alternating_takes_the_warm_ratio_the_same_way_only_where_every_side_has_one():
    def run(rates, warm):
        return lambda round_: {"records_per_s": rates[round_], "warm_records_per_s": warm[round_]}

    found = phases.alternating(3, run([100, 100, 100], [200, 300, 400]), run([90, 90, 90], [100, 240, 400]))
    assert abs(found["warm_ratio"] - 0.8) < 1e-12  # 0.5, 0.8, 1.0: the warm rates' own median
    assert abs(found["ratio"] - 0.9) < 1e-12  # the whole catch-ups' ratio is not the warm one
    # a catch-up of one batch has no warm rate: no warm ratio rather than one of fewer rounds
    assert phases.alternating(2, run([100, 100], [200, None]), run([90, 90], [100, 200]))["warm_ratio"] is None


def test_alternating_takes_the_cpu_ratio_of_driver_and_server_together_only_where_every_round_has_both():
    def run(driver, server):
        return lambda round_: {"records_per_s": 1.0, "cpu_s": driver[round_], "server_cpu_s": server[round_]}

    # rounds' (driver + server) with / without: 55/50 = 1.1, 66/40 = 1.65, 48/40 = 1.2 -> median 1.2
    found = phases.alternating(3, run([45, 38, 36], [5, 2, 4]), run([50, 60, 40], [5, 6, 8]))
    assert abs(found["cpu_ratio"] - 1.2) < 1e-12
    assert found["cpu_s"] == [[50, 55], [40, 66], [40, 48]]
    # a round without the server's figure (no server found): no CPU ratio of fewer rounds
    assert phases.alternating(2, run([45, 38], [5, None]), run([50, 60], [5, 6]))["cpu_ratio"] is None
    assert phases.alternating(1, lambda r: {"records_per_s": 1.0}, lambda r: {"records_per_s": 1.0})["cpu_ratio"] is None


def test_rss_trend_finds_growth_and_ignores_warm_up():
    commits = [float(i) for i in range(100)]
    growing = [(i + 0.5, 1000.0 + i, 50.0) for i in range(100)]  # +1 MB per batch
    flat = [(i + 0.5, 900.0 if i < 10 else 1000.0, 50.0) for i in range(100)]  # warm-up, then flat
    # +2 MB per batch while the JIT warms up (to batch 40), flat after it
    levelling = [(i + 0.5, 1000.0 + 2 * min(i, 40), 50.0) for i in range(100)]
    assert round(rss_trend(growing, commits)["slope_mb_per_100_batches"]) == 100
    assert abs(rss_trend(flat, commits)["slope_mb_per_100_batches"]) < 1e-9
    assert abs(rss_trend(levelling, commits)["slope_mb_per_100_batches"]) < 1e-9
    assert rss_trend(levelling, commits)["slope_from_20pct"] > 20  # from batch 20 it still sees the warm-up
    assert rss_trend([], commits)["slope_mb_per_100_batches"] is None


def test_percentile_and_goals():
    assert percentile([3.0, 1.0, 2.0, 4.0], 0.5) == 3.0
    results = {"a_ceiling": {"records_per_s": 1000.0}, "a2_spark_source": {"warm_records_per_s": 100.0},
               "b_job": {"records_per_s": 70.0, "warm_records_per_s": 75.0},
               "c_python": {"records_per_s": 20.0}, "d_naive_udf": {"records_per_s": 30.0}}
    met = {goal[:12]: (measured, ok) for goal, measured, ok in goals.goals(results)}
    assert met == {"(b) warm >= ": ("0.75 x", True), "(b) >= 4 x (": ("3.50 x", False), "(b) >= 2.5 x": ("2.33 x", False)}
    assert goals.ratios(results) == {"b_warm_over_spark_source": 0.75, "b_over_python": 3.5,
                                      "b_over_udf": 70 / 30, "b_over_kafka": 0.07, "access_over_app": None,
                                      "json_over_app": None, "otlp_proto_over_app": None, "otlp_json_over_app": None}
    assert goals.ratios({"b_job": {"records_per_s": 1.0}})["b_warm_over_spark_source"] is None
    results["formats"] = {"access": {"records_per_s": 60.0}, "json": {"records_per_s": 34.0}}
    met = {goal.split(":")[0]: (measured, ok) for goal, measured, ok in goals.goals(results)}
    assert met["LOG_FORMAT=access"] == ("0.86 x", True) and met["LOG_FORMAT=json"] == ("0.49 x", False)
    results["o_otlp"] = {"proto": {"log_records_per_s": 84.0}, "json": {"log_records_per_s": 42.0}}
    met = {goal.split(":")[0]: (measured, ok) for goal, measured, ok in goals.goals(results)}
    assert met["LOG_FORMAT=otlp, otlp_proto"] == ("1.20 x", True) and met["LOG_FORMAT=otlp, otlp_json"] == ("0.60 x", False)


def test_native_memory_categories_and_their_report():
    nmt = ("Total: reserved=3000000KB, committed=970000KB\n"
           "-                 Java Heap (reserved=2097152KB, committed=570368KB)\n"
           "                            (mmap: reserved=2097152KB, committed=570368KB)\n"
           "-                      Code (reserved=251000KB, committed=61440KB)\n"
           "-                     Class (reserved=1049000KB, committed=22528KB)\n")
    found = {name.strip(): int(kb) // 1024 for name, kb in procs.NMT_LINE.findall(nmt)}
    assert found == {"Java Heap": 557, "Code": 60, "Class": 22}
    (line, _blank) = report.native_memory_lines({"from": found, "to": {**found, "Code": 86, "Class": 23}}, 120)
    assert line.endswith("from batch 120 to the soak's end: Java Heap 557 -> 557, Code 60 -> 86.")  # Class moved < 2
    assert report.native_memory_lines({}, None) == []


def test_empty_trigger_goal_needs_no_batch_and_little_cpu():
    def goal(idle):
        steady = {"trigger_interval_s": 1, "latency_s": {"p99": 1.5}, "idle": idle, "target_rate": 150_000}
        return {name[:30]: (measured, ok) for name, measured, ok in goals.goals({"e_steady": steady})}

    cheap = {"seconds": 20.0, "batches_run": 0, "driver_cores": 0.02, "cpu_ms_per_trigger": 20.0}
    assert goal(cheap)["empty-batch overhead <= 150 ms"] == ("20.00 ms", True)
    assert goal({**cheap, "batches_run": 3})["empty-batch overhead <= 150 ms"] == ("20.00 ms, 3 batches ran", False)
    assert goal({**cheap, "cpu_ms_per_trigger": 151.0})["empty-batch overhead <= 150 ms"][1] is False
    assert "empty-batch overhead <= 150 ms" not in goal(None)
    assert goal(cheap)["p99 latency minus the trigger "] == ("0.50 s", True)  # 1.5 s at a 1 s trigger
    assert report.idle_lines(cheap, 1)[0].endswith("20.0 ms of CPU per empty trigger.")


def test_usage_of_bench_and_chaos_shows_the_declared_defaults():
    """Their --help is the only usage text (the module docstrings point at it)."""
    from bench.__main__ import DEFAULT_LINES, PHASES
    from bench.__main__ import parser as bench_parser
    from tests.chaos.run import parser as chaos_parser

    bench_help = " ".join(bench_parser().format_help().split())
    assert f"(default: {PHASES})" in bench_help and "--only" in bench_help
    assert f"(default: {DEFAULT_LINES})" in bench_help or "BENCH_LINES" in bench_help
    chaos = chaos_parser()
    chaos_help = " ".join(chaos.format_help().split())
    for action in chaos._actions:
        if action.default not in (None, "==SUPPRESS==") and action.dest != "help":
            assert f"(default: {action.default})" in chaos_help, action.dest
    assert "[--lines 500000]" not in chaos_help  # no hand-written usage line to drift


def test_compare_puts_two_runs_side_by_side_with_the_direction_of_each_change():
    from bench.compare import render

    def run(b_rate, p99):
        return {"meta": {"date": "d", "machine": "m"}, "a_ceiling": {"records_per_s": 1000.0},
                "b_job": {"records_per_s": b_rate}, "c_python": {"records_per_s": 100.0},
                "d_naive_udf": {"records_per_s": 50.0}, "e_steady": {"latency_s": {"p99": p99}}}

    text = render(run(200.0, 2.0), run(300.0, 1.0), "old", "new")
    assert "| (b) the job, catch-up | records/s | 200 | 300 | +50 % (better) |" in text
    assert "| (e) latency p99 at 50 % of (b) | s | 2.00 | 1.00 | -50 % (better) |" in text
    assert "| (b)/(c) | x | 2.00 | 3.00 | +50 % (better) |" in text
    assert "| (d) naive UDF job | records/s | 50.00 | 50.00 | +0 % |" in text
    assert "| soak: tiny batch cycle p50 | ms | n/a | n/a |  |" in text


def test_a_time_ordered_corpus_keeps_every_event_and_each_reject_after_the_line_before_it():
    from bench.corpus import in_time_order
    events = [(b"r0", None, True, None), (b"a", None, False, "2026-01-05 06:03:00"), (b"r1", None, True, None),
              (b"b", "2026-01-05 06:01:00", False, "2026-01-05 06:01:00"), (b"c", None, False, "2026-01-05 06:03:00"),
              (b"d", None, False, "2026-01-05 06:02:00")]
    ordered = in_time_order(events)
    assert sorted(ordered) == sorted(events)
    assert [event[0] for event in ordered] == [b"r0", b"b", b"d", b"a", b"r1", b"c"]


def test_the_results_name_the_command_the_run_was_asked_for():
    from bench.__main__ import DEFAULT_LINES, command_line
    assert command_line([], DEFAULT_LINES, {}) == "make bench"
    assert command_line([], 3_000_000, {}) == "make bench BENCH_LINES=3000000"  # BENCH_LINES from the environment
    assert command_line(["--only", "l", "--lines", "3000000", "--ordered"], 3_000_000, {"PATH": "/bin"}) == \
        "python -m bench --only l --lines 3000000 --ordered"
    # a job setting in the environment reaches every driver: it leads the command; a secret never shows
    env = {"MAX_OFFSETS_PER_TRIGGER": "1500000", "MYSQL_PASSWORD": "hunter2", "TRIGGER_INTERVAL": "2 seconds"}
    assert command_line(["--only", "l"], 3_000_000, env) == \
        "MAX_OFFSETS_PER_TRIGGER=1500000 TRIGGER_INTERVAL='2 seconds' python -m bench --only l"
    assert command_line([], DEFAULT_LINES, env) == "MAX_OFFSETS_PER_TRIGGER=1500000 TRIGGER_INTERVAL='2 seconds' make bench"


def test_a_run_stopped_part_way_keeps_the_figures_of_the_phases_it_finished(tmp_path):
    import json

    import pytest

    from bench.__main__ import run_steps

    def stopped() -> dict:
        raise KeyboardInterrupt  # the run stopped during its third phase

    steps = [("a", "a_first", "first", lambda: {"records_per_s": 5.0}), ("b", "b_skipped", "not asked for", lambda: {}),
             ("c", "c_second", "second", lambda: {"ratio": 0.91}), ("d", "d_third", "third", stopped)]
    results: dict = {"meta": {"date": "d"}}
    with pytest.raises(KeyboardInterrupt):
        run_steps(steps, "acd", results, tmp_path)
    kept = json.loads((tmp_path / "results-partial.json").read_text())
    assert kept["a_first"] == {"records_per_s": 5.0} and kept["c_second"] == {"ratio": 0.91}
    assert "b_skipped" not in kept and "d_third" not in kept
    assert sorted(kept["meta"]["phase_minutes"]) == ["a_first", "c_second"] and kept["meta"]["date"] == "d"


def test_the_app_corpus_is_reported_only_when_a_phase_read_it_and_the_variants_table_when_one_ran():
    meta = {"date": "2026-11-28", "command": "python -m bench --only l", "machine": "2 cores", "lines": 3_000_000,
            "topic": "bench-app", "partitions": 4, "error_lines": 450_000, "rejected": 150_000}
    partial = report.markdown({"meta": meta})
    assert "Corpus: 3,000,000 lines in topic `bench-app`" not in partial and "| variant |" not in partial
    whole = report.markdown({"meta": meta, "b_job": {"records_per_s": 70.0}})
    assert "Corpus: 3,000,000 lines in topic `bench-app`" in whole
    assert "| (b) this job, catch-up | 70 |" in whole and "| (c) pure-Python consumer (confluent-kafka) | not run |" in whole
    recount = report.markdown({"meta": meta, "r_recount": {"catch_up": {"records_per_s": 1.0}, "recount": {"records_per_s": 1.0},
                                                            "ratio": 1.0, "best_ratio": 1.0, "rounds": [(1.0, 1.0)]}})
    assert "Corpus: 3,000,000 lines in topic `bench-app`" in recount and "| variant |" not in recount


def test_scale_ratios_are_each_size_over_its_curves_first_and_the_goals_name_the_largest():
    from bench import scale

    def catch_up(rate, first_commit=10.0, rss=(500.0, 70.0)):
        return {"records_per_s": rate, "first_commit_s": first_commit, "peak_rss_mb": {"jvm": rss[0], "python": rss[1]}}
    found = {"lines": 1000, "minutes": 180,
             "partitions": {"4": catch_up(100.0, 10.0), "512": catch_up(85.0), "2048": catch_up(40.0, 25.0)},
             "topics": {"1": catch_up(200.0), "100": catch_up(150.0)},
             "series": {"10": catch_up(100.0), "100000": catch_up(90.0, rss=(2000.0, 100.0))},
             "table": {"0": {"rows_upserted": 1000, "commit_ms_total": 50},
                       "50000000": {"rows_upserted": 1000, "commit_ms_total": 100}},
             "history": {"525600": catch_up(50.0)},
             "steady": {"4": {"latency_s": {"p99": 1.25}, "trigger_interval_s": 1.0},
                        "512": {"latency_s": {"p99": 3.0}, "trigger_interval_s": 1.0}}}
    assert scale.ratios(found) == {"partitions_512_over_4": 0.85, "partitions_2048_over_4": 0.4,
                                   "topics_100_over_1": 0.75, "series_100000_over_10": 0.9,
                                   "table_50m_over_empty": 0.5, "history_525600_over_180": 0.5,
                                   "steady_512_over_4": 0.125}
    met = {goal.split(":")[0]: (value, ok) for goal, value, ok in scale.goals(found)}
    assert met == {"partitions_512_over_4": ("0.85 x", True), "partitions_2048_over_4": ("0.40 x", False),
                   "topics_100_over_1": ("0.75 x", False), "series_100000_over_10": ("0.90 x", True),
                   "table_50m_over_empty": ("0.50 x", False),
                   "start -> first commit at 2,048 partitions <= 2 x at 4": ("2.5 x", False),
                   "p99 - trigger at 512 partitions <= 0.5 s": ("2.00 s", False),
                   "driver RSS at 100,000 series <= 2,048 MB": ("2,100 MB", False)}
