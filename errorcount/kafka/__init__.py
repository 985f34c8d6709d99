"""Kafka as the driver sees it: which topics it reads (subscription.py), their partitions, offsets
and IDs (topic_metadata.py), and the offsets mirrored to a consumer group for lag tools (lag_mirror.py)."""
