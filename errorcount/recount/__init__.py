"""Recounting a time range under the job's current rules (docs/operations.md, "Recounting a time
range"): plan.py decides, as pure functions, which offsets can hold the range's records and when a
recount must be refused."""
