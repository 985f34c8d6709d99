"""The one harness the tests, make bench and make chaos share, outside the shipped package: real
spark-submit drivers through scripts/run.sh and waiting on conditions (drivers.py), and the
operator's view of what the job stored in MySQL (admin_db.py)."""
