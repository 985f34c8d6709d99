"""A sample record with what the job must make of it: the one type errorcount/tools/samples.py (the
generators) and samples_otlp.py (OTLP requests) both build, in a module of its own so that neither
imports the other for it."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Event:
    value: bytes | None
    error_minute: str | None  # 'YYYY-MM-DD HH:MM:00' (UTC) if this event must be counted as an error
    rejected: bool
    labels: tuple[tuple[str, str], ...] = ()  # a line's dimension values (error or not), as written by the generator
    minute: str | None = None  # every line's minute (COUNT_LINES), error or not; None for a reject
    # LOG_FORMAT=otlp: the record is a request and these are its log records, each an Event of
    # its own without a value (an undecodable request has none and is itself the reject)
    log_records: tuple["Event", ...] | None = None
