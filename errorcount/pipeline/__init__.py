"""The data path inside Spark, as DataFrame -> DataFrame steps: Kafka's source (source.py), the
log-line classifier (classify.py, the JVM class behind it in java/), the batch's one aggregate
(aggregate.py) folded into its BatchSummary (summary.py)."""
