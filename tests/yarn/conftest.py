"""Fixtures for the YARN tests: the real Kafka and MariaDB, and the MiniYARNCluster that
`make yarn-test` starts (scripts/yarn-mini.sh)."""

import pytest

from tests.services import admin, clean_error_log, make_topic, start_driver  # noqa: F401
from tests.yarn.cluster import CONF_DIR, YarnApps


@pytest.fixture(scope="session")
def yarn():
    if not (CONF_DIR / "yarn-site.xml").exists():
        pytest.fail("no local YARN: run these tests through `make yarn-test` (it starts the MiniYARNCluster)")
    return YarnApps()


@pytest.fixture
def submitted(yarn):
    """Applications submitted by one test; any still running at its end are killed."""
    apps: list[str] = []
    yield apps
    for app in apps:
        if yarn.state(app)[0] not in ("FINISHED", "FAILED", "KILLED"):
            yarn.cli("application", "-kill", app)
