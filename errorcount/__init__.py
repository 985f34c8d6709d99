"""Exactly-once ERROR-line counter: Kafka -> Spark Structured Streaming -> MySQL."""
