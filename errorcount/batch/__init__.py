"""One micro-batch, in foreachBatch: counted within its planned bounds (count.py, checkpoint.py
reads the plan), then committed in one MySQL transaction (commit.py)."""
