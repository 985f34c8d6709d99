"""Recounting a time range under the job's current rules (being built): plan.py decides, as pure
functions, which offsets can hold the range's records and when a recount must be refused; diff.py
says what a recount changes, minute by minute."""
