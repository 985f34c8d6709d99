"""Exactly-once ERROR-line counter: Kafka -> Spark Structured Streaming -> MySQL."""

__version__ = "1.1.0"  # the one place: pyproject.toml reads it, `python -m errorcount --version` prints it
