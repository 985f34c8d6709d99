"""Realistic records of each LOG_FORMAT, each carrying its expected outcome computed here with
plain Python datetimes (never with the job's parser): web-server access lines (nginx, Apache;
an error is a 5xx) and JSON events of several loggers and one shipper (ECS logback, zap, pino,
logrus, structlog, python-json-logger, Google Cloud, Filebeat wrapping a raw line), some
pretty-printed, with a share of records each contract must reject.

FORMATS[name].settings are the job settings the expectations assume (pino writes level 50 for
errors, so the json samples count ERROR_LEVELS=ERROR,50); `make produce FORMAT=...` prints them.
"""

import json
import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from errorcount.tools.events import Event

LEVELS_OTHER = ["INFO", "WARN", "DEBUG", "[INFO]", "warn:", "Errors", "TRACE"]
LEVELS_ERROR = ["ERROR", "error", "[ERROR]", "ERROR:", "[error]:", "Error"]
ZONES = [None, "Z", "+02:00", "-0530", "+14:00", "-12:00", "+00:00"]
BAD_VALUES = [
    None, b"", b"   \t ", b"no timestamp ERROR here", b"ERROR 2024-01-01 00:00:00",
    "２０２４-01-01 10:00:00 ERROR fullwidth digits".encode(),
    b"2023-02-29 10:00:00 ERROR not a leap year", b"2024-04-31 10:00:00 ERROR no such day",
    b"2024-01-01 24:00:00 ERROR hour 24", b"2024-01-01 10:60:00 ERROR minute 60",
    b"2024-01-01 10:00:60 ERROR second 60", b"2024-01-01 10:00 ERROR no seconds",
    b"2024-01-01 10:00:00+15:00 ERROR zone hour 15", b"2024-01-01 10:00:00 +01:00 ERROR spaced zone",
    b"2024-01-01 10:00:00.1234567890 ERROR ten fraction digits", b"2024-01-01 10:00:00",
    b"2024-01-01 10:00:00 ERROR_X underscore level", b"2024-01-01 10:00:00 [ERROR bracket",
    b"2024-01-01 10:00:00 ERR0R digit in level", b"2024-01-01 10:00:00ERROR no space",
    b"\xff\xfe\x00binary \x80 junk", b"2024-01-01\t10:00:00 ERROR tab separator",
    b"0999-12-31 23:59:00 ERROR before year 1000", b"9999-12-31 23:30:00-01:00 ERROR after 9999 in UTC",
    b"garbage first line\n2024-01-01 10:00:00 ERROR second line does not count",
]


def outcomes(events: list[Event]) -> list[Event]:
    """What is counted or rejected: each event, or the log records of a request (LOG_FORMAT=otlp)."""
    return [one for e in events for one in ((e,) if e.log_records is None or e.rejected else e.log_records)]


def format_line(instant: datetime, zone: str | None, level: str, rng: random.Random) -> str:
    """Renders a UTC instant as a contract line in the given zone notation."""
    offset = timedelta(0)
    if zone and zone != "Z":
        sign = -1 if zone[0] == "-" else 1
        digits = zone[1:].replace(":", "")
        offset = sign * timedelta(hours=int(digits[:2]), minutes=int(digits[2:]))
    local = instant + offset if zone else instant
    text = local.strftime("%Y-%m-%d") + rng.choice([" ", "T"]) + local.strftime("%H:%M:%S")
    fraction = rng.choice(["", f".{instant.microsecond // 1000:03d}", f",{instant.microsecond:06d}", ".123456789"])
    return text + fraction + (zone or "") + rng.choice([" ", "  ", "\t"]) + level


def make_event(rng: random.Random, start: datetime, minutes: int) -> Event:
    roll = rng.random()
    if roll < 0.05:
        return Event(rng.choice(BAD_VALUES), None, True)
    instant = start + timedelta(seconds=rng.uniform(0, minutes * 60))
    is_error = roll < 0.20
    level = rng.choice(LEVELS_ERROR if is_error else LEVELS_OTHER)
    line = format_line(instant, rng.choice(ZONES), level, rng)
    line += rng.choice(["", f" request {rng.randrange(10**6)} failed", "\tdetail",
                        " trace\n  at a.b(C.java:1)\n  at d.e(F.java:2)", " crlf\r\n"])
    minute = instant.replace(second=0, microsecond=0).strftime("%Y-%m-%d %H:%M:00")
    labels = (("level", level.strip("[]:").upper()),)
    return Event((" " + line if rng.random() < 0.05 else line).encode(), minute if is_error else None, False, labels,
                 minute)


def expected_counts(events: list[Event]) -> dict[str, int]:
    return dict(Counter(e.error_minute for e in outcomes(events) if e.error_minute))


def expected_lines(events: list[Event]) -> dict[str, int]:
    """{minute: lines}: every line, error or not (COUNT_LINES)."""
    return dict(Counter(e.minute for e in outcomes(events) if e.minute))


def expected_rejects(events: list[Event]) -> int:
    return sum(e.rejected for e in outcomes(events))


def expected_log_records(events: list[Event]) -> int:
    """The log records the ledger counts: one per record, an OTLP request's own (none when it
    cannot be decoded)."""
    return sum(1 if e.log_records is None else len(e.log_records) for e in events)


def expected_series_lines(events: list[Event], dimensions: tuple[str, ...]) -> dict[tuple[str, tuple[str, ...]], int]:
    """{(minute, values of `dimensions`): lines}, every line's, from what the generator wrote."""
    return dict(Counter((e.minute, tuple(dict(e.labels)[name] for name in dimensions)) for e in outcomes(events) if e.minute))


def expected_series(events: list[Event], dimensions: tuple[str, ...]) -> dict[tuple[str, tuple[str, ...]], int]:
    """{(minute, values of `dimensions`): errors}, from what the generator wrote."""
    return dict(Counter((e.error_minute, tuple(dict(e.labels)[name] for name in dimensions))
                        for e in outcomes(events) if e.error_minute))


MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
ACCESS_ZONES = (0, -7 * 60, 5 * 60 + 30, 14 * 60, -12 * 60, 60)
HOSTS = ("203.0.113.7", "198.51.100.23", "2001:db8::1", "::1", "proxy.example.net", "10.0.0.5")
# (request, its method, its path at PATH_DEPTH 1)
REQUESTS = (("GET /index.html HTTP/1.1", "GET", "/index.html"), ("POST /api/v1/orders?id=42 HTTP/2.0", "POST", "/api"),
            ("GET /search?q=\\\"quoted\\\" HTTP/1.1", "GET", "/search"),
            ("\\x16\\x03\\x01\\x02\\x00\\x01\\x00\\x01\\xFC\\x03\\x03",
             "\\x16\\x03\\x01\\x02\\x00\\x01\\x00\\x01\\xFC\\x03\\x03", ""),
            ("-", "-", ""), ("HEAD / HTTP/1.0", "HEAD", "/"), ("GET /caf\xe9 HTTP/1.1", "GET", "/caf\xe9"))
STATUSES = (200, 200, 200, 201, 204, 301, 302, 304, 400, 401, 403, 404, 404, 499, 500, 502, 503, 504)
AGENTS = ("", ' "-" "curl/8.5.0"', ' "https://example.com/start" "Mozilla/5.0 (X11; Linux x86_64)"',
          ' "-" "Go-http-client/1.1" rt=0.012 uct="0.001"')
BAD_ACCESS = (
    None, b"", b"not an access line at all",
    b'203.0.113.7 - - [10/Oct/2000:13:55:36] "GET / HTTP/1.0" 200 1 no zone',
    b'203.0.113.7 - - [10/oct/2000:13:55:36 +0000] "GET / HTTP/1.0" 500 1 lower-case month',
    b'203.0.113.7  - - [10/Oct/2000:13:55:36 +0000] "GET / HTTP/1.0" 500 1 two spaces',
    b'203.0.113.7 - - [10/Oct/2000:13:55:36 +0000] "GET / HTTP/1.0 500 1',
    b'203.0.113.7 - - [10/Oct/2000:13:55:36 +0000] "GET / HTTP/1.0" 600 1',
    b'203.0.113.7 - - [31/Apr/2024:13:55:36 +0000] "GET / HTTP/1.0" 500 1',
    b'203.0.113.7 - - [29/Feb/2023:13:55:36 +0000] "GET / HTTP/1.0" 503 1',
    b'203.0.113.7 - - [31/Dec/0999:23:59:59 +0000] "GET / HTTP/1.0" 500 1',
    b'203.0.113.7 - - [10/Oct/2000:24:00:00 +0000] "GET / HTTP/1.0" 500 1',
    b'203.0.113.7 - - [10/Oct/2000:13:55:36 +0000] "GET / HTTP/1.0" 50 1',
)
SERVICES = ("payments", "search", "checkout", "auth", "inventory", "caf\u00e9-api")
LEVEL_TEXT = {True: ("ERROR", "error", "Error"), False: ("INFO", "info", "WARN", "warning", "DEBUG", "")}
BAD_JSON = (
    None, b"", b" \n ", b"[1, 2]", b"{'level': 'error'}", b'{"level": "error", "ts": NaN}', b'{"level": "error",',
    b'\xef\xbb\xbf{"level": "error", "ts": 1}', b'{"level": "error", "ts": 1,}', b'{"level": "error"}',
    b'{"ts": 1714557600}', b'{"ts": 1714557600, "level": true}', b'{"@timestamp": "2023-02-29T10:00:00Z", "level": "error"}',
    b'{"ts": 1e20, "level": "error"}', b'{"time": "2024-05-01T10:00:00Z ", "level": "error"}',
    b'{"log": [{"level": "error"}], "ts": 1}', b'2024-05-01 10:00:00 ERROR a plain line',
)


@dataclass(frozen=True)
class Format:
    settings: dict[str, str]
    make: Callable[[random.Random, datetime, int], Event]
    group_by: str  # the dimensions each error's labels hold (canonical GROUP_BY)


def minute_of(instant: datetime) -> str:
    return instant.strftime("%Y-%m-%d %H:%M:00")


def access_event(rng: random.Random, start: datetime, minutes: int) -> Event:
    if rng.random() < 0.04:
        return Event(rng.choice(BAD_ACCESS), None, True)
    instant = start + timedelta(seconds=rng.uniform(0, minutes * 60))
    offset = rng.choice(ACCESS_ZONES)
    local = instant + timedelta(minutes=offset)
    zone = f"{'-' if offset < 0 else '+'}{abs(offset) // 60:02d}{abs(offset) % 60:02d}"
    status = rng.choice(STATUSES)
    size = rng.choice(("-", "0", str(rng.randrange(10**6))))
    request, method, path = rng.choice(REQUESTS)
    line = (f'{rng.choice(HOSTS)} - {rng.choice(("-", "frank", "user@example.com"))} '
            f'[{local:%d}/{MONTHS[local.month - 1]}/{local:%Y:%H:%M:%S} {zone}] "{request}" '
            f"{status} {size}{rng.choice(AGENTS)}{rng.choice(('', '', chr(13)))}")
    labels = (("status", str(status)), ("method", method), ("path", path))
    return Event(line.encode(), minute_of(instant) if status >= 500 else None, False, labels, minute_of(instant))


def json_event(rng: random.Random, start: datetime, minutes: int) -> Event:
    if rng.random() < 0.04:
        return Event(rng.choice(BAD_JSON), None, True)
    instant = start + timedelta(seconds=rng.uniform(0, minutes * 60))
    error = rng.random() < 0.15
    level = rng.choice(LEVEL_TEXT[error])
    event: dict[str, object]
    since_epoch = instant - datetime(1970, 1, 1)
    seconds, milliseconds = since_epoch // timedelta(seconds=1), since_epoch // timedelta(milliseconds=1)
    iso = instant.strftime("%Y-%m-%dT%H:%M:%S.") + f"{instant.microsecond:06d}"
    message = f"request {rng.randrange(10**6)} {'failed' if error else 'served'}: caf\u00e9 \"x\""
    shape = rng.randrange(8)
    if shape == 0:    # ECS logback / log4j2 EcsLayout: dotted keys
        event = {"@timestamp": iso[:-3] + "Z", "log.level": level, "message": message, "ecs.version": "1.2.0",
                 "process.thread.name": "main", "log.logger": "com.example.App"}
    elif shape == 1:  # zap production config: epoch seconds as a float
        event = {"level": level.lower(), "ts": float(f"{seconds}.{instant.microsecond:06d}"),
                 "caller": "app/main.go:42", "msg": message}
    elif shape == 2:  # pino: numeric levels, epoch milliseconds
        event = {"level": 50 if error else rng.choice((30, 40, 20)), "time": milliseconds, "pid": 7,
                 "hostname": "web-1", "msg": message}
    elif shape == 3:  # logrus: RFC 3339 with an offset
        local = instant + timedelta(hours=2)
        event = {"level": level.lower(), "msg": message, "time": local.strftime("%Y-%m-%dT%H:%M:%S+02:00")}
    elif shape == 4:  # structlog JSONRenderer
        event = {"event": message, "level": level.lower(), "timestamp": iso + "Z", "logger": "app"}
    elif shape == 5:  # python-json-logger: a zoneless timestamp counts as written
        event = {"message": message, "levelname": level.upper(), "timestamp": iso.replace("T", " ")[:-3],
                 "name": "app"}
    elif shape == 6:  # Google Cloud structured logging
        event = {"severity": level.upper() or "DEFAULT", "timestamp": iso + "Z", "message": message}
        if not error and event["severity"] == "ERROR":
            event["severity"] = "INFO"
    else:             # Filebeat: the raw line in message, its own level decoded under log.level
        event = {"@timestamp": iso[:-3] + "Z", "message": f"{iso} {level} {message}",
                 "log": {"level": level.lower(), "offset": rng.randrange(10**6), "file": {"path": "/var/log/app.log"}},
                 "agent": {"type": "filebeat", "version": "8.14.0"}, "ecs": {"version": "8.0.0"}}
    service = "" if rng.random() < 0.1 else rng.choice(SERVICES)  # "": the event names no service
    if service and shape == 0:
        event["service.name"] = service  # ECS: a dotted top-level key
    elif service:
        event["service"] = {"name": service, "version": "1.4.2"}
    text = json.dumps(event, indent=2 if rng.random() < 0.1 else None, ensure_ascii=rng.random() < 0.5)
    labels = (("field:service.name", service), ("level", json_level_label(event, shape, level)))
    return Event(text.encode(), minute_of(instant) if error else None, False, labels, minute_of(instant))


def json_level_label(event: dict, shape: int, level: str) -> str:
    """The level dimension of a generated event: the level as written, upper-cased (pino's number as
    text, Google's severity as set)."""
    if shape == 2:
        return str(event["level"])
    if shape == 6:
        return str(event["severity"])
    return level.upper()


def otlp_event(rng: random.Random, start: datetime, minutes: int) -> Event:
    """An OTLP export request (errorcount/tools/samples_otlp.py: imported here, when asked for, as
    it needs the tools' opentelemetry-proto)."""
    from errorcount.tools import samples_otlp
    return samples_otlp.request_event(rng, start, minutes)


FORMATS = {
    "app": Format({"LOG_FORMAT": "app"}, make_event, "level"),
    "otlp": Format({"LOG_FORMAT": "otlp"}, otlp_event, "attr:http.route,level,resource:service.name"),
    "access": Format({"LOG_FORMAT": "access"}, access_event, "method,path,status"),
    "json": Format({"LOG_FORMAT": "json", "ERROR_LEVELS": "ERROR,50"}, json_event, "field:service.name,level"),
}


def generate(log_format: str, count: int, seed: int, start: datetime, minutes: int) -> list[Event]:
    rng, make = random.Random(seed), FORMATS[log_format].make
    return [make(rng, start, minutes) for _ in range(count)]
