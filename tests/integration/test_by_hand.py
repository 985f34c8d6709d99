"""docs/operations.md "spark-submit by hand": its command block, run as written from the checkout,
counts a topic exactly; without the classifier jar, or without the Kafka connector's, the driver
stops at start with exit 2 naming the jar that is missing and how to get it."""

from datetime import datetime

import pytest

from errorcount.tools import kafka_admin, produce, samples
from tests.support import documented_block, error_log, stored_offsets, unique, wait_until

START = datetime(2034, 2, 1, 8, 0)
pytestmark = pytest.mark.slow


def test_the_documented_command_counts_a_topic_exactly(clean_error_log, make_topic, start_driver, tmp_path):
    admin, topic, job = clean_error_log, make_topic(partitions=2), unique("job")
    events = samples.generate("app", 800, seed=81, start=START, minutes=10)
    produce.produce(topic, events)
    marker = tmp_path / "stop"
    driver = start_driver(job, topic, env={"STOP_MARKER": str(marker)}, command=["bash", "-ec", documented_block()])
    wait_until(lambda: driver.check_alive() or stored_offsets(admin, job, topic) == kafka_admin.end_offsets(topic),
               240, "the job started by hand to catch up")
    assert error_log(admin) == samples.expected_counts(events)
    marker.touch()
    assert driver.wait(120) == 0, driver.log()[-3000:]


@pytest.mark.parametrize(("jars", "missing", "present"), [
    ('"$(scripts/jars.sh spark)"', "errorcount-classify.jar", "spark-sql-kafka"),
    ('"$PWD/.local/java/errorcount-classify.jar"', "spark-sql-kafka-0-10_2.13", "errorcount-classify.jar"),
])
def test_a_missing_jar_is_named_with_exit_2(jars, missing, present, make_topic, start_driver):
    block = documented_block()
    assert '--jars "$JARS"' in block
    driver = start_driver(unique("job"), make_topic(partitions=1), command=["bash", "-ec", block.replace('"$JARS"', jars)])
    assert driver.wait(180) == 2, driver.log()[-3000:]
    line = next(line for line in driver.log().splitlines() if "not on the driver's classpath" in line)
    assert missing in line and present not in line
    assert "--jars" in line and "spark-submit by hand" in line
