"""The data path inside Spark, as DataFrame -> DataFrame steps: Kafka's source (source.py), the
log-line classifier (classify.py, the JVM class behind it in java/), the batch's one pass that
classifies and counts in the JVM (one_pass.py) and its rows folded into a BatchSummary (summary.py)."""
