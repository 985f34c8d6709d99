"""`make bench`: the job against the read ceiling and the alternatives, side by side (python -m bench)."""
