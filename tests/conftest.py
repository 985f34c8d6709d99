"""Shared test setup lives in tests/support.py and tests/services.py; the project is installed
in the venv (`make venv`, editable), so `errorcount` imports like any package."""
