"""The OTLP clause of the contract (docs/contract.md, "OTLP") in plain Python over the official
`opentelemetry-proto` package: its message descriptors, decoded by the protobuf runtime itself,
with one documented change: every string field is read as bytes (the contract does not check
UTF-8; a label replaces what is not). Independent of java/errorcount/Protobuf.java,
OtlpProto.java and ClassifyOtlp.java on purpose: the schema and the wire format are protobuf's
own here. Also what the tests build requests with (request())."""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from google.protobuf.message import DecodeError
from opentelemetry.proto.collector.logs.v1 import logs_service_pb2
from opentelemetry.proto.common.v1 import common_pb2
from opentelemetry.proto.logs.v1 import logs_pb2
from opentelemetry.proto.resource.v1 import resource_pb2

from errorcount.pipeline.classify import Contract
from tests.oracles.pydims import label
from tests.oracles.pyformats import upper_ascii

LEVELS = ("TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL")
NANOS_PER_MINUTE = 60_000_000_000
REQUEST = "opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest"


def lenient_request_class():
    """ExportLogsServiceRequest from the package's own descriptors, string fields made bytes."""
    pool = descriptor_pool.DescriptorPool()
    for module in (common_pb2, resource_pb2, logs_pb2, logs_service_pb2):  # dependencies first
        proto = descriptor_pb2.FileDescriptorProto()
        module.DESCRIPTOR.CopyToProto(proto)
        pending = list(proto.message_type)
        while pending:
            message = pending.pop()
            pending.extend(message.nested_type)
            for field in message.field:
                if field.type == descriptor_pb2.FieldDescriptorProto.TYPE_STRING:
                    field.type = descriptor_pb2.FieldDescriptorProto.TYPE_BYTES
        pool.Add(proto)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName(REQUEST))


LENIENT = lenient_request_class()


@dataclass(frozen=True)
class Outcome:
    """One log record's outcome: `reason` for a reject (minute None), else its minute, whether it
    is an ERROR and its series (None when the contract gives it none)."""
    reason: str | None
    minute: int | None = None
    error: bool = False
    series: str | None = None


def attribute(pairs: Iterable, key: bytes) -> str:
    """The label of the first attribute with `key`: a string as written, an int in decimal, a bool
    as true/false, anything else (or none) empty."""
    for pair in pairs:
        if pair.key == key:
            kind = pair.value.WhichOneof("value")
            if kind == "string_value":
                return label(pair.value.string_value.decode("utf-8", "replace"))
            if kind == "bool_value":
                return "true" if pair.value.bool_value else "false"
            if kind == "int_value":
                return str(pair.value.int_value)
            return ""
    return ""


class Otlp:
    """The outcomes of each request under one contract (LOG_FORMAT=otlp)."""

    def __init__(self, contract: Contract):
        self.error_severity = int(contract["OTLP_ERROR_SEVERITY"])
        self.error_levels = {upper_ascii(name.strip()).encode() for name in contract["ERROR_LEVELS"].split(",")}
        group_by = contract["GROUP_BY"]
        self.dimensions = [name for name in group_by.split(",") if name and name != "topic"] if group_by else []
        self.every_line = contract["COUNT_LINES"] == "true"

    def outcomes(self, value: bytes | None) -> list[Outcome]:
        if value is None:
            return [Outcome("null_value")]
        try:
            request = LENIENT.FromString(value)
        except DecodeError:
            return [Outcome("bad_otlp")]
        found = []
        for resource_logs in request.resource_logs:
            for scope_logs in resource_logs.scope_logs:
                for record in scope_logs.log_records:
                    found.append(self.outcome(resource_logs.resource, scope_logs.scope, record))
        return found

    def outcome(self, resource, scope, record) -> Outcome:
        nanos = record.time_unix_nano or record.observed_time_unix_nano
        if not nanos:
            return Outcome("bad_timestamp")
        severity, text = record.severity_number, record.severity_text
        error = upper_ascii_bytes(text) in self.error_levels if severity == 0 else severity >= self.error_severity
        labelled = self.dimensions and (self.every_line or error)
        series = "\x1f".join(self.value(name, resource, scope, record) for name in self.dimensions) if labelled else None
        return Outcome(None, nanos // NANOS_PER_MINUTE, error, series)

    @staticmethod
    def value(name: str, resource, scope, record) -> str:
        if name.startswith("resource:"):
            return attribute(resource.attributes, name[len("resource:"):].encode())
        if name.startswith("attr:"):
            return attribute(record.attributes, name[len("attr:"):].encode())
        if name == "scope:name":
            return label(scope.name.decode("utf-8", "replace"))
        if name == "severity":
            return label(record.severity_text.decode("utf-8", "replace"))
        if name == "level":
            severity = record.severity_number
            if 1 <= severity <= 24:
                return LEVELS[(severity - 1) // 4]
            if severity != 0:
                return str(severity)
            return label(upper_ascii_bytes(record.severity_text).decode("utf-8", "replace"))
        raise ValueError(f"no OTLP dimension {name!r}")


def upper_ascii_bytes(text: bytes) -> bytes:
    return bytes(c - 32 if 97 <= c <= 122 else c for c in text)


def key_values(attributes: dict) -> list:
    """OTLP attributes from a dict (values as any_value takes them)."""
    return [common_pb2.KeyValue(key=key, value=any_value(value)) for key, value in attributes.items()]


def any_value(value) -> common_pb2.AnyValue:
    """An AnyValue from a str, bool, int, float, bytes, list (array) or dict (map)."""
    built = common_pb2.AnyValue()
    if isinstance(value, bool):
        built.bool_value = value
    elif isinstance(value, int):
        built.int_value = value
    elif isinstance(value, float):
        built.double_value = value
    elif isinstance(value, bytes):
        built.bytes_value = value
    elif isinstance(value, list):
        built.array_value.values.extend(any_value(v) for v in value)
    elif isinstance(value, dict):
        built.kvlist_value.values.extend(key_values(value))
    else:
        built.string_value = value
    return built


@dataclass(frozen=True)
class Record:
    """One log record to write: times in ns (0: none), severity, text, body, attributes."""
    time_ns: int
    severity: int = 0
    text: str = ""
    body: object = ""  # as any_value takes it; "" for none
    attributes: dict | None = None
    observed_ns: int = 0


Scopes = Sequence[tuple[str, Sequence[Record]]]  # per scope: its name and records


def request(resources: Sequence[tuple[dict, Scopes]]) -> logs_service_pb2.ExportLogsServiceRequest:
    """An export request: per resource its attributes and its scopes, per scope its name and records."""
    built = logs_service_pb2.ExportLogsServiceRequest()
    for attributes, scopes in resources:
        resource_logs = built.resource_logs.add()
        resource_logs.resource.attributes.extend(key_values(attributes))
        for name, records in scopes:
            scope_logs = resource_logs.scope_logs.add()
            scope_logs.scope.name = name
            for record in records:
                log = scope_logs.log_records.add()
                log.time_unix_nano, log.observed_time_unix_nano = record.time_ns, record.observed_ns
                log.severity_number, log.severity_text = record.severity, record.text
                if record.body != "":
                    log.body.CopyFrom(any_value(record.body))
                log.attributes.extend(key_values(record.attributes or {}))
    return built
