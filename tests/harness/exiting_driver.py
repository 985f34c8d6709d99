"""A driver script (scripts/run.sh job --driver) that exits at once with EXITING_DRIVER_CODE (3), as
the job's driver does on a fatal error, having announced itself to the wrapper as every driver does."""

import errorcount.driver_path  # noqa: F401  # isort: skip
import os
import sys

if __name__ == "__main__":
    code = int(os.environ.get("EXITING_DRIVER_CODE", "3"))
    print(f"exiting_driver: pid {os.getpid()} exits {code}", flush=True)
    sys.exit(code)
