"""What the outside sees of the job: per batch (watch.py: lag.py, metrics.py), Spark's own timing
(progress.py) and the driver's structured log lines (logline.py)."""
