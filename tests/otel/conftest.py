"""Fixtures for make otel-check: the real Kafka and MariaDB (tests/services.py)."""

from tests.services import admin, make_topic, start_driver  # noqa: F401
