"""Realistic OTLP export requests (LOG_FORMAT=otlp), as the OpenTelemetry Collector's Kafka exporter
writes them from its filelog receiver or an SDK: a request per record, a few services (resources)
with their scopes and a batch of log records each, in otlp_proto or otlp_json. Each log record
carries its expected outcome, computed here from the integers written (never with the job's
reader): some have no time of their own (the filelog receiver without a time parser sets only the
observed time), some have neither (rejected), errors are severity numbers 17 to 24 or, with the
number unspecified, the text ERROR; a few requests cannot be decoded at all.

Built with the official generated classes (opentelemetry-proto, a tools dependency)."""

import calendar
import random
from datetime import datetime, timedelta

from google.protobuf import json_format
from opentelemetry.proto.collector.logs.v1 import logs_service_pb2

from errorcount.tools.events import Event

LEVELS = ("TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL")
SERVICES = ("checkout", "payments", "search", "caf\u00e9-api", "auth")
SCOPES = ("", "io.opentelemetry.logback-appender", "com.example.orders", "go.uber.org/zap")
ROUTES = (None, "/api/orders/{id}", "/health", "/search", "/cart")
TEXTS_ERROR = ("ERROR", "error", "Error")
TEXTS_OTHER = ("INFO", "info", "WARN", "DEBUG", "", "Errors")
NANOS = 1_000_000_000
BAD = (b"\x0a\xff\x01", b"\x0a\x05\x12\x03\x12\x01", b"{\"resourceLogs\": [", b"{\"resourceLogs\": {}}",
       b"\x0b\x0b\x0b", b"{\"resourceLogs\": [{\"scopeLogs\": [{\"logRecords\": [{\"timeUnixNano\": \"-1\"}]}]}]}")


def minute_text(nanos: int) -> str:
    return (datetime(1970, 1, 1) + timedelta(minutes=nanos // (60 * NANOS))).strftime("%Y-%m-%d %H:%M:00")


def request_event(rng: random.Random, start: datetime, minutes: int, encoding: str | None = None) -> Event:
    """One Kafka record: an export request of a few resources, scopes and log records, in
    `encoding` (proto or json; None: either, mostly proto as the exporter's default)."""
    if rng.random() < 0.03:
        return Event(rng.choice(BAD), None, True, log_records=())
    request = logs_service_pb2.ExportLogsServiceRequest()
    first_ns = calendar.timegm(start.timetuple()) * NANOS
    expected: list[Event] = []
    for service in rng.sample(SERVICES, rng.choice((1, 1, 2))):
        resource_logs = request.resource_logs.add()
        for key, value in (("service.name", service), ("host.name", f"node-{rng.randrange(4)}")):
            pair = resource_logs.resource.attributes.add(key=key)
            pair.value.string_value = value
        for scope in rng.sample(SCOPES, rng.choice((1, 1, 2))):
            scope_logs = resource_logs.scope_logs.add()
            scope_logs.scope.name = scope
            for _ in range(rng.choice((0, 1, 3, 8, 20, 40))):
                expected.append(log_record(rng, scope_logs.log_records.add(), service, first_ns, minutes))
    json_encoded = encoding == "json" or encoding is None and rng.random() < 0.3
    value = (json_format.MessageToJson(request, indent=None).encode() if json_encoded else request.SerializeToString())
    return Event(value, None, False, log_records=tuple(expected))


def log_record(rng: random.Random, record, service: str, first_ns: int, minutes: int) -> Event:
    """Fills `record` (a LogRecord) and returns what it must count as."""
    instant = first_ns + rng.randrange(minutes * 60 * NANOS)
    observed = instant + rng.randrange(3 * NANOS)
    roll = rng.random()
    if roll < 0.7:
        record.time_unix_nano, record.observed_time_unix_nano = instant, observed
    elif roll < 0.97:
        record.observed_time_unix_nano = instant  # no time of its own: the observed time counts
    error = rng.random() < 0.15
    if rng.random() < 0.6:
        record.severity_number = rng.randint(17, 24) if error else rng.randint(1, 16)
        record.severity_text = LEVELS[(record.severity_number - 1) // 4]
        level = record.severity_text
    else:
        record.severity_text = rng.choice(TEXTS_ERROR if error else TEXTS_OTHER)
        level = record.severity_text.upper()
    record.body.string_value = f"{'request failed' if error else 'request served'} id={rng.randrange(10**6)}"
    route = rng.choice(ROUTES)
    if route is not None:
        record.attributes.add(key="http.route").value.string_value = route
    record.attributes.add(key="http.response.status_code").value.int_value = 500 if error else 200
    if roll >= 0.97:
        return Event(None, None, True)
    minute = minute_text(instant)
    labels = (("attr:http.route", route or ""), ("level", level), ("resource:service.name", service))
    return Event(None, minute if error else None, False, labels, minute)
