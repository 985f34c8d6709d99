"""Exit codes and the exceptions that map to them.

Each code means one thing an operator must act on; the message printed with it says what.
"""

EXIT_OK = 0
EXIT_INTERNAL = 1       # a bug or an unexpected failure: read the traceback
EXIT_CONFIG = 2         # configuration, schema or topic problem: fix the setting and restart
EXIT_FENCED = 3         # another instance wrote this job's offsets: only one may run
EXIT_DATA_LOSS = 4      # stored offsets no longer match what Kafka holds: records would be lost
EXIT_UNAVAILABLE = 5    # MySQL or Kafka could not be reached: restart when they are back
EXIT_INTERRUPTED = 130  # a second stop signal: exited at once (nothing half-committed)


class JobStop(Exception):
    """Stops the job with an exit code and an operator-facing message."""

    exit_code = EXIT_INTERNAL

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class ConfigError(JobStop):
    exit_code = EXIT_CONFIG


class FencedError(JobStop):
    exit_code = EXIT_FENCED


class DataLossError(JobStop):
    exit_code = EXIT_DATA_LOSS


class UnavailableError(JobStop):
    exit_code = EXIT_UNAVAILABLE
