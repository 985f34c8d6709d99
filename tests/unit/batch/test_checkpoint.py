import os
import subprocess
import sys

from errorcount.batch import checkpoint
from errorcount.offsets import TopicPartition
from tests.support import ROOT


def dead_pid() -> int:
    """The PID of a process that has exited and been reaped."""
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def test_owner_pid_reads_the_name_and_ignores_other_shapes(tmp_path):
    assert checkpoint.owner_pid(tmp_path / "errorcount-checkpoint-4242-ab_c9") == 4242
    assert checkpoint.owner_pid(tmp_path / "errorcount-checkpoint-x8k2lq0z") is None  # older, PID-less name
    assert checkpoint.owner_pid(tmp_path / "errorcount-checkpoint-4242") is None
    assert checkpoint.owner_pid(tmp_path / "errorcount-checkpoint-") is None
    assert checkpoint.owner_pid(tmp_path / "other-4242-abc") is None


def test_fresh_names_the_directory_after_this_process_and_removes_it(tmp_path):
    with checkpoint.fresh(str(tmp_path)) as created:
        assert os.path.isdir(created)
        assert checkpoint.owner_pid(tmp_path / os.path.basename(created)) == os.getpid()
    assert not os.path.exists(created)


def test_sweep_removes_only_dead_drivers_directories(tmp_path):
    dead = tmp_path / f"errorcount-checkpoint-{dead_pid()}-aaaa"
    live = tmp_path / f"errorcount-checkpoint-{os.getppid()}-bbbb"
    own = tmp_path / f"errorcount-checkpoint-{os.getpid()}-cccc"
    legacy = tmp_path / "errorcount-checkpoint-dddd"
    for path in (dead, live, own, legacy):
        (path / "offsets").mkdir(parents=True)
    unrelated = tmp_path / f"errorcount-checkpoint-{dead_pid()}-file"
    unrelated.write_text("not a directory")

    assert checkpoint.sweep_stale(str(tmp_path)) == [dead]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(p.name for p in (live, own, legacy, unrelated))


# An offset log entry as Spark 4.0 writes it for the Kafka source (metadata shortened).
OFFSET_LOG = ('v1\n{"batchWatermarkMs":0,"batchTimestampMs":1795428778273,"conf":{"spark.sql.shuffle.partitions":"1"}}\n'
              '{"logs":{"0":505,"1":505,"2":500,"3":0}}')
OFFSET_LOG_TOPICS = 'v1\n{"batchWatermarkMs":0}\n{"logs-b":{"1":9,"0":7},"logs":{"0":5}}'  # a source reading two topics


def test_planned_offsets_reads_the_topics_end_offsets_or_nothing(tmp_path):
    (tmp_path / "offsets").mkdir()
    (tmp_path / "offsets" / "7").write_text(OFFSET_LOG)
    (tmp_path / "offsets" / "8").write_text("v1\n{}\n")  # a half-written entry (malformed)
    (tmp_path / "offsets" / "10").write_text(OFFSET_LOG_TOPICS)
    assert checkpoint.planned_offsets(str(tmp_path), 7) == {TopicPartition("logs", p): o
                                                            for p, o in enumerate((505, 505, 500, 0))}
    assert checkpoint.planned_offsets(str(tmp_path), 10) == {TopicPartition("logs", 0): 5, TopicPartition("logs-b", 0): 7,
                                                             TopicPartition("logs-b", 1): 9}
    assert checkpoint.planned_offsets(str(tmp_path), 8) is None
    assert checkpoint.planned_offsets(str(tmp_path), 9) is None  # no entry
    assert checkpoint.planned_offsets(str(tmp_path / "missing"), 7) is None


MANAGER = "spark.sql.streaming.checkpointFileManagerClass"
SPARKS_OWN = "org.apache.spark.sql.execution.streaming.checkpointing.FileSystemBasedCheckpointFileManager"


def checkpoint_written_by(spark, tmp_path, manager: str):
    """The checkpoint directory a real streaming query (a file source, Spark's noop sink, one
    available-now batch) left, written through `manager`."""
    source, location = tmp_path / f"in-{manager}", tmp_path / f"checkpoint-{manager}"
    source.mkdir()
    (source / "a.json").write_text('{"a": 1}\n{"a": 2}\n')
    spark.conf.set(MANAGER, manager)
    try:
        query = (spark.readStream.schema("a int").json(str(source)).writeStream.format("noop")
                 .option("checkpointLocation", "file://" + str(location)).trigger(availableNow=True).start())
        assert query.awaitTermination(120), "the available-now query did not end in 120 s"
    finally:
        spark.conf.unset(MANAGER)
    return location


def test_the_jobs_checkpoint_manager_writes_the_logs_without_checksum_files(spark, tmp_path):
    """conf/spark-defaults.conf's manager (java/errorcount/LocalCheckpointFiles.java) writes the
    offset and commit logs Spark and checkpoint.planned_offsets read, and no `.crc` file beside
    them, where Spark's own FileSystem-based manager writes one per file."""
    conf = (ROOT / "conf" / "spark-defaults.conf").read_text(encoding="utf-8")
    named = [line.split()[1] for line in conf.splitlines() if line.startswith(MANAGER)]
    assert named == ["errorcount.LocalCheckpointFiles"]
    ours, sparks = (checkpoint_written_by(spark, tmp_path, m) for m in (named[0], SPARKS_OWN))
    for location in (ours, sparks):
        assert (location / "offsets" / "0").read_text().startswith("v1\n")
        assert (location / "commits" / "0").exists()
    assert not [p.name for p in ours.rglob("*") if p.name.endswith(".crc")]
    assert [p.name for p in sparks.rglob("*") if p.name.endswith(".crc")]  # what the manager leaves out
    assert sorted(str(p.relative_to(ours)) for p in ours.rglob("*")) == sorted(
        str(p.relative_to(sparks)) for p in sparks.rglob("*") if not p.name.endswith(".crc"))
