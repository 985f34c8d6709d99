"""Fixtures for tests against the real services (imported by the integration and fault conftests)."""

import pytest

from errorcount.tools import kafka_admin
from tests.support import Driver, Scenario, admin_connect, launch, release_counts_table, unique


@pytest.fixture(scope="session")
def admin():
    if not kafka_admin.is_ready():
        pytest.fail("Kafka is not reachable: run these tests through `make test` (it starts the stack)")
    conn = admin_connect()
    yield conn
    conn.close()


@pytest.fixture
def clean_error_log(admin):
    """error_log is written by every test's job: each test starts from an empty one that no job owns."""
    release_counts_table(admin)
    return admin


@pytest.fixture
def make_topic():
    created = []

    def make(partitions: int = 3) -> str:
        topic = unique("it")
        kafka_admin.create_topic(topic, partitions)
        created.append(topic)
        return topic

    yield make
    for topic in created:
        kafka_admin.delete_topic(topic)


@pytest.fixture
def start_driver(request):
    """start(job, topic, ...) -> a Driver (tests/support.py launch), killed after the test. When the
    test failed, each driver's last lines are printed (shown with the failure): a CI machine's logs
    do not outlive it."""
    drivers = []

    def start(job: str, topic: str, **kwargs) -> Driver:
        driver = launch(job, topic, **kwargs)
        drivers.append(driver)
        return driver

    yield start
    for driver in drivers:
        driver.kill()
    if getattr(request.node, "failed_phase", None):
        for driver in drivers:
            print(f"--- the last lines of {driver.log_path} ---\n" + "\n".join(driver.log().splitlines()[-60:]))


@pytest.fixture
def scenario(clean_error_log, make_topic, start_driver):
    """scenario(partitions, start[, log_format]) -> a Scenario on a fresh topic and job name."""
    def make(partitions: int, start, log_format: str = "app") -> Scenario:
        return Scenario(clean_error_log, make_topic(partitions), unique("job"), start, start_driver, log_format)
    return make
