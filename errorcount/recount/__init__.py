"""Recounting a time range under the job's current rules (make recount): main.py the driver,
run.py its steps, plan.py (pure) which offsets can hold the range's records and when to refuse,
facts.py what the plan is made of, count.py the Spark read, diff.py what changes per minute; the
swap itself is errorcount/store/recount.py."""
