"""The packaged job on a real YARN (MiniYARNCluster) in cluster mode: the driver lives in the
ApplicationMaster. Its container dies mid-stream; YARN's attempt 2 must resume from MySQL and
finish exact; the stop marker and `yarn application -kill` must stop it with nothing half-committed."""

import json
import re
from collections import Counter
from datetime import datetime

import pytest

from errorcount.errors import EXIT_FENCED
from errorcount.tools import kafka_admin
from tests.harness.admin_db import counts_locked
from tests.harness.race_once import race_once
from tests.support import (
    Scenario,
    app_password,
    documented_block,
    free_port,
    group_offsets,
    query,
    scrape,
    stored_offsets,
    unique,
    wait_until,
)
from tests.yarn.cluster import CONF_DIR, ROOT, SPARK_JARS, YarnApps, java_home, job_env

START = datetime(2036, 2, 29, 23, 30)
SMALL_BATCHES = "300"  # ten batches for 3000 lines
SLOW_TRIGGER = "4 seconds"  # the first commit seen and the counts locked (below) well before a second one
BACKLOG = 1500  # the AM-kill test's lines before its submission: five batches of SMALL_BATCHES
pytestmark = pytest.mark.yarn


@pytest.fixture
def run(clean_error_log, make_topic):
    topic = make_topic(3)
    return Scenario(clean_error_log, topic, unique("yarn"), START, launch=None)


def marker_for(run: Scenario):
    marker = ROOT / ".local" / "yarn" / "markers" / run.job
    marker.parent.mkdir(parents=True, exist_ok=True)
    return marker


def wait_caught_up(yarn: YarnApps, run: Scenario, app: str, what: str, timeout: float = 300) -> None:
    """Polls MySQL, and YARN's REST API on whether the app died meanwhile."""
    def done():
        state = yarn.state(app)[0]
        assert state in ("ACCEPTED", "RUNNING"), f"{app} is {state} while waiting for {what}"
        return stored_offsets(run.admin, run.job, run.topic) == kafka_admin.end_offsets(run.topic)
    wait_until(done, timeout, what)


def test_am_container_killed_mid_stream_attempt_2_resumes_exact(yarn, submitted, run):
    marker = marker_for(run)
    env = job_env(run.job, run.topic, marker, MAX_OFFSETS_PER_TRIGGER=SMALL_BATCHES, TRIGGER_INTERVAL=SLOW_TRIGGER)
    run.write(BACKLOG, seed=71, minutes=90)  # crosses midnight: Feb 29 into Mar 1 in UTC
    app = yarn.submit(env)
    submitted.append(app)

    # Mid-stream: some batches committed, the backlog not yet drained. The next commit waits on a
    # lock of every counts row until the kill has landed: `yarn container -signal` is a client JVM,
    # which on a busy host took longer than attempt 1 needed for the rest of the backlog.
    wait_until(lambda: run.ledger()[0] >= 1, 300, "attempt 1 to commit a batch",)
    with counts_locked():
        [(attempt1, _state, am1)] = yarn.attempts(app)
        yarn.kill_container(am1)
        at_kill = sum(stored_offsets(run.admin, run.job, run.topic).values())
    assert at_kill < BACKLOG, "attempt 1 drained the backlog before the kill: the test did not kill mid-stream"

    second = wait_until(lambda: len(a := yarn.attempts(app)) == 2 and a[1], 300, "YARN to start attempt 2")
    run.write(1000, seed=72, minutes=90)  # the stream goes on while attempt 2 starts
    wait_caught_up(yarn, run, app, "attempt 2 to catch up")
    assert run.counts() == run.produced.total()
    assert run.ledger()[1] == BACKLOG + 1000  # every offset committed exactly once, across both attempts
    log2 = yarn.driver_log(second[2])
    assert "epoch 2 taken" in log2, log2[-3000:]
    assert f"resuming from {run.topic}-" in log2  # attempt 2 planned its start from MySQL, per topic-partition

    marker.touch()
    assert yarn.wait_state(app, ("FINISHED", "FAILED", "KILLED"), 180) == ("FINISHED", "SUCCEEDED")
    assert "stopped cleanly at a batch boundary" in yarn.driver_log(second[2])
    assert [a[0] for a in yarn.attempts(app)][0] == attempt1 and len(yarn.attempts(app)) == 2  # no third attempt
    assert run.counts() == run.produced.total()
    assert app_password() not in yarn.app_logs(app)  # not in any container's environment, argv or log

    # The packaged recount (submit-yarn.sh recount) of a past hour that holds none of the lines: it
    # reads every record the job counted (Kafka timestamps of today), finds none in the hour, and
    # swaps in an empty hour; the counts stay what they are.
    recount = yarn.submit({**env, "FROM": "2026-01-01 00:00", "TO": "2026-01-01 01:00"}, "recount")
    assert yarn.wait_state(recount, ("FINISHED", "FAILED", "KILLED"), 300) == ("FINISHED", "SUCCEEDED")
    assert run.counts() == run.produced.total()
    [(errors, read_to)] = query(run.admin, "SELECT errors_after, offsets_to FROM recounts WHERE job = %s", (run.job,))
    written = Counter(str(partition) for partition, _offset, _event in run.produced.placed)  # a fresh topic: its ends
    assert errors == 0 and json.loads(read_to) == {run.topic: dict(written)}


def test_kill_stops_with_nothing_half_committed_and_resubmission_resumes(yarn, submitted, run):
    marker = marker_for(run)
    marker.touch()  # left over from an earlier stop: the submission removes it
    env = job_env(run.job, run.topic, marker, MAX_OFFSETS_PER_TRIGGER=SMALL_BATCHES)
    run.write(3000, seed=73, minutes=30)
    app = yarn.submit(env)
    submitted.append(app)
    assert not marker.exists()

    wait_until(lambda: run.ledger()[0] >= 1, 300, "the job to commit a batch",)
    duplicate = yarn.run_script("submit-yarn.sh", env)
    assert duplicate.returncode == EXIT_FENCED and "already runs on YARN" in duplicate.stderr, duplicate.stderr

    assert yarn.run_script("stop-yarn.sh", env, "--kill").returncode == 0
    assert yarn.wait_state(app, ("FINISHED", "FAILED", "KILLED"), 120)[0] == "KILLED"
    assert len(yarn.attempts(app)) == 1  # a kill is final: YARN starts no other attempt
    stored = stored_offsets(run.admin, run.job, run.topic)
    assert run.counts() == run.produced.counts_below(stored)  # exactly the committed batches
    assert run.ledger()[1] == sum(stored.values())

    at_kill = (run.ledger(), sum(run.counts().values()))
    run.write(1000, seed=76, minutes=30)  # more while it is down: the resubmitted driver has work of its own
    port = free_port()  # the resubmitted driver serves its metrics to other machines, on a port of the test's choice
    again = yarn.submit({**env, "MAX_OFFSETS_PER_TRIGGER": "0", "METRICS_PORT": str(port), "METRICS_HOST": "0.0.0.0"})
    submitted.append(again)
    wait_caught_up(yarn, run, again, "the resubmitted job to catch up")
    assert run.counts() == run.produced.total()
    assert run.ledger()[1] == 4000
    check_watched_from_the_submitting_host(yarn, run, again, port, at_kill)
    stopped = yarn.run_script("stop-yarn.sh", env)
    assert stopped.returncode == 0 and "FINISHED / SUCCEEDED" in stopped.stderr, stopped.stderr


def check_watched_from_the_submitting_host(yarn: YarnApps, run: Scenario, app: str, port: int, before) -> None:
    """The driver's endpoint as the lease stores it and its log says, scraped from here: its counters
    cover exactly what it committed (MySQL now minus MySQL before it started); the offsets mirror
    holds MySQL's offsets in the job's consumer group."""
    am = yarn.attempts(app)[0][2]
    endpoint = query(run.admin, "SELECT metrics_endpoint FROM job_leases WHERE job = %s", (run.job,))[0][0]
    assert endpoint == f"{yarn.node_of(app, am)}:{port}"  # the node YARN put the driver on, not 0.0.0.0
    assert f"metrics: this driver's endpoint is http://{endpoint}/metrics" in yarn.driver_log(am)
    (batches0, records0, _errors0, rejected0), errors0 = before
    batches, records, _errors, rejected = run.ledger()
    label = f'job_name="{run.job}"'
    wait_until(lambda: scrape(endpoint).get(("errorcount_records_total", label)) == records - records0, 60,
               "the scraped record counter to reach what MySQL committed")
    metrics = scrape(endpoint)
    assert metrics[("errorcount_batches_total", label)] == batches - batches0
    assert metrics[("errorcount_error_lines_total", label)] == sum(run.counts().values()) - errors0
    assert metrics[("errorcount_rejected_records_total", label)] == rejected - rejected0
    assert metrics[("errorcount_epoch", label)] == run.epoch()
    stored = stored_offsets(run.admin, run.job, run.topic)
    for partition, offset in stored.items():
        assert metrics[("errorcount_committed_offset", f'{label},partition="{partition}",topic="{run.topic}"')] == offset
    wait_until(lambda: group_offsets(f"errorcount-{run.job}", run.topic, len(stored)) == stored, 60,
               "the mirrored consumer group to hold MySQL's offsets")


def test_a_newer_instance_by_hand_in_client_mode_replaces_the_application_for_good(yarn, submitted, run, start_driver):
    """Another instance of the same job replaces the YARN application: docs/operations.md "spark-submit
    by hand", as written, with SPARK_MASTER=yarn (the driver here, its executors in YARN containers).
    The application's attempt 1 is fenced at its next commit; YARN starts attempt 2, which must exit 3
    without taking the lease back; the application fails for good and the newer instance counts
    exactly. The newer one's first SparkContext fails to start as Spark's UI race does in client mode
    (tests/harness/race_once.py), after its application was submitted: the driver starts the context
    again, as a second application, and counts as if nothing had happened. (One test for both: each
    YARN application costs ~30 s of container and driver starts.)"""
    marker = marker_for(run)
    env = job_env(run.job, run.topic, marker, MAX_OFFSETS_PER_TRIGGER=SMALL_BATCHES)
    env["SPARK_SUBMIT_EXTRA"] += " --conf spark.yarn.maxAppAttempts=2"
    run.write(3000, seed=74, minutes=30)
    app = yarn.submit(env)
    submitted.append(app)
    wait_until(lambda: run.ledger()[0] >= 1, 300, "the YARN job to commit a batch",)

    newer, armed = by_hand_in_client_mode(run, marker, start_driver)
    wait_until(lambda: newer.check_alive() or run.epoch() == 2, 300, "the newer instance to take the lease")
    run.write(600, seed=75, minutes=30)  # the YARN driver meets the newer lease at its next commit
    assert yarn.wait_state(app, ("FINISHED", "FAILED", "KILLED"), 300)[1] == "FAILED"
    attempts = yarn.attempts(app)
    assert len(attempts) == 2
    assert "it replaced this application" in yarn.driver_log(attempts[1][2])
    assert run.epoch() == 2

    caught_up = lambda: stored_offsets(run.admin, run.job, run.topic) == kafka_admin.end_offsets(run.topic)  # noqa: E731
    wait_until(lambda: newer.check_alive() or caught_up(), 300, "the newer instance, by hand in YARN client mode, to catch up")
    assert run.counts() == run.produced.total()
    assert run.ledger()[1] == 3600
    assert not armed.exists(), "RaceOnce never ran: spark.extraListeners did not reach the driver"
    retried = [line for line in newer.log().splitlines() if "failed to start on a race inside Spark" in line]
    assert retried and "java.util.ConcurrentModificationException" in retried[0], newer.log()[-3000:]
    assert "attempt 2 of 3" in retried[0]  # (an "attempt 3 of 3" too if Spark's own race struck the second)
    apps = re.findall(r"Submitting application (application_\d+_\d+) to ResourceManager", newer.log())
    assert len(apps) == len(retried) + 1, newer.log()[-3000:]  # one per start
    assert yarn.state(apps[-1])[0] == "RUNNING"  # its executors are YARN's
    marker.touch()
    assert newer.wait(180) == 0, newer.log()[-3000:]
    # a failed start's application, its AM cut off from the driver, ends by itself (docs/operations.md)
    for failed in apps[:-1]:
        wait_until(lambda failed=failed: yarn.state(failed)[0] in ("FINISHED", "FAILED", "KILLED"), 300,
                   f"the failed start's application {failed} to end")


def by_hand_in_client_mode(run: Scenario, marker, start_driver):
    """The job started by docs/operations.md's "spark-submit by hand" block with SPARK_MASTER=yarn
    and its first SparkContext set to fail once on Spark's UI race; (the driver, the race's arming file)."""
    armed = ROOT / ".local" / "yarn" / "markers" / f"{run.job}.race"
    race_options, race_env = race_once(armed)
    extra = [f"--conf spark.yarn.stagingDir=file://{ROOT}/.local/yarn/staging", f"--conf spark.yarn.jars=local:{SPARK_JARS}/*",
             f"--conf spark.yarn.appMasterEnv.JAVA_HOME={java_home()}", f"--conf spark.executorEnv.JAVA_HOME={java_home()}",
             "--conf spark.executor.instances=1 --conf spark.executor.cores=1 --conf spark.executor.memory=1g",
             "--name errorcount-by-hand-" + run.job, race_options]
    env = {"SPARK_MASTER": "yarn", "HADOOP_CONF_DIR": str(CONF_DIR), "SPARK_SUBMIT_EXTRA": " ".join(extra),
           "STOP_MARKER": str(marker), **race_env}
    return start_driver(run.job, run.topic, env=env, command=["bash", "-ec", documented_block()]), armed


def test_invalid_configuration_stops_the_submission_before_yarn(yarn, run):
    env = job_env(run.job, run.topic, marker_for(run), STARTING_OFFSETS="sometimes")
    result = yarn.run_script("submit-yarn.sh", env)
    assert result.returncode == 2, result.stderr
    assert "STARTING_OFFSETS must be earliest or latest" in result.stderr
    assert "spark-submit" not in result.stderr and not result.stdout.strip()  # nothing was submitted
