"""Fixtures for tests against the real Kafka and MariaDB."""

from tests.services import admin, clean_error_log, make_topic, scenario, start_driver  # noqa: F401
