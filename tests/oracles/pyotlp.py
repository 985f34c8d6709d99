"""The OTLP clause of the contract (docs/contract.md, "OTLP") in plain Python over the official
`opentelemetry-proto` package: its message descriptors, decoded by the protobuf runtime itself,
with one documented change: every string field is read as bytes (the contract does not check
UTF-8; a label replaces what is not). Independent of java/errorcount/Protobuf.java,
OtlpProto.java and ClassifyOtlp.java on purpose: the schema and the wire format are protobuf's
own here. Also what the tests build requests with (request())."""

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory, unknown_fields
from google.protobuf.message import DecodeError, Message
from opentelemetry.proto.collector.logs.v1 import logs_service_pb2
from opentelemetry.proto.common.v1 import common_pb2
from opentelemetry.proto.logs.v1 import logs_pb2
from opentelemetry.proto.resource.v1 import resource_pb2

from errorcount.pipeline.classify import Contract
from tests.oracles.pydims import SURROGATE, label
from tests.oracles.pyformats import upper_ascii

LEVELS = ("TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL")
NANOS_PER_MINUTE = 60_000_000_000
REQUEST = "opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest"
WIRE_GROUP = 3  # a start-group tag's wire type


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


@dataclass(frozen=True)
class Logged:
    """One log record as read from either encoding: its attributes and its resource's as (key,
    label of the value) pairs in the order written, its scope's name."""
    time: int
    observed: int
    severity: int
    text: bytes
    attributes: list[tuple[bytes, str]]
    resource: list[tuple[bytes, str]]
    scope: bytes


class Bad(Exception):
    """The request cannot be decoded."""


def first(pairs: list[tuple[bytes, str]], key: bytes) -> str:
    """The label of the first attribute with `key` ('' without one)."""
    return next((value for found, value in pairs if found == key), "")


def proto_label(value) -> str:
    """An AnyValue as a label: a string as written, an int in decimal, a bool as true/false, else empty."""
    kind = value.WhichOneof("value")
    if kind == "string_value":
        return label(value.string_value.decode("utf-8", "replace"))
    if kind == "bool_value":
        return "true" if value.bool_value else "false"
    return str(value.int_value) if kind == "int_value" else ""


def from_proto(value: bytes) -> list[Logged]:
    try:
        request = LENIENT.FromString(value)
    except DecodeError:
        raise Bad from None
    if zero_tag_in_groups(request):
        raise Bad
    if not request.resource_logs:
        raise Bad  # no resource_logs at all: not what an exporter writes (another format's value)
    found = []
    for resource_logs in request.resource_logs:
        resource = [(pair.key, proto_label(pair.value)) for pair in resource_logs.resource.attributes]
        for scope_logs in resource_logs.scope_logs:
            for record in scope_logs.log_records:
                found.append(Logged(record.time_unix_nano, record.observed_time_unix_nano, record.severity_number,
                                    record.severity_text, [(pair.key, proto_label(pair.value)) for pair in record.attributes],
                                    resource, scope_logs.scope.name))
    return found


def zero_tag_in_groups(message) -> bool:
    """Whether an unknown group anywhere in `message` holds a tag of field number 0: upb (this
    runtime) skips it there, protobuf-java ("invalid tag (zero)") and Go's protowire refuse it, as
    upb itself does outside a group; the contract takes the refusal (docs/contract.md, "OTLP")."""
    def zero_inside(fields) -> bool:
        return any(f.field_number == 0 or (f.wire_type == WIRE_GROUP and zero_inside(f.data)) for f in fields)

    if any(f.wire_type == WIRE_GROUP and zero_inside(f.data) for f in unknown_fields.UnknownFieldSet(message)):
        return True
    return any(zero_tag_in_groups(item) for field, value in message.ListFields() if field.message_type is not None
               for item in ([value] if isinstance(value, Message) else value))


class Obj(list):
    """A JSON object as its (name, value) pairs in order (names may repeat)."""


def get(obj: Obj, *names: str):
    """The value of the last member named one of `names`; None when absent or null."""
    return next((value for name, value in reversed(obj) if name in names), None)


def objects(value) -> list:
    """An array of objects (None: empty); Bad otherwise."""
    if value is None:
        return []
    if type(value) is not list or any(type(item) is not Obj for item in value):
        raise Bad
    return value


def utf8(text: str) -> bytes:
    """A decoded JSON string as bytes, a lone surrogate as U+FFFD (as the JVM decodes escapes)."""
    return SURROGATE.sub("\ufffd", text).encode("utf-8")


def integer(value, low: int, high: int, signed: bool) -> int:
    """An integer in [low, high]: a JSON integer or a string of digits ('-' first when signed)."""
    if type(value) is int and low <= value <= high:
        return value
    if type(value) is str and re.fullmatch("-?[0-9]+" if signed else "[0-9]+", value) and low <= int(value) <= high:
        return int(value)
    raise Bad


MEMBERS = {"string": ("stringValue", "string_value"), "bool": ("boolValue", "bool_value"), "int": ("intValue", "int_value"),
           "other": ("doubleValue", "double_value", "arrayValue", "array_value", "kvlistValue", "kvlist_value", "bytesValue",
                     "bytes_value")}


def member_label(kind: str, member) -> str:
    """An attribute value's member (not null) as a label; Bad when a member read has another type."""
    if kind == "string":
        if type(member) is not str:
            raise Bad
        return label(utf8(member).decode("utf-8", "replace"))
    if kind == "bool":
        if type(member) is not bool:
            raise Bad
        return "true" if member else "false"
    if kind == "int":
        return str(integer(member, -2**63, 2**63 - 1, True))
    return ""


def json_attributes(value) -> list[tuple[bytes, str]]:
    pairs = []
    for pair in objects(value):
        key, any_value = get(pair, "key"), get(pair, "value")
        if key is not None and type(key) is not str or any_value is not None and type(any_value) is not Obj:
            raise Bad
        text = ""
        last_of_each = {name: position for position, (name, _member) in enumerate(any_value or [])}
        for position, (name, member) in enumerate(any_value or []):
            kind = next((kind for kind, names in MEMBERS.items() if name in names), None)
            if kind is None or member is None or last_of_each[name] != position:
                continue  # not a member, null, or a name written again later
            text = member_label(kind, member)  # in order: the last member written wins
        pairs.append((utf8(key or ""), text))
    return pairs


def json_records(scope_logs: Obj, resource: list[tuple[bytes, str]]) -> list[Logged]:
    scope = get(scope_logs, "scope")
    name = get(scope, "name") if type(scope) is Obj else None
    if scope is not None and type(scope) is not Obj or name is not None and type(name) is not str:
        raise Bad
    found = []
    for record in objects(get(scope_logs, "logRecords", "log_records")):
        times = [get(record, *names) for names in (("timeUnixNano", "time_unix_nano"),
                                                   ("observedTimeUnixNano", "observed_time_unix_nano"))]
        time, observed = (0 if t is None else integer(t, 0, 2**64 - 1, False) for t in times)
        severity = get(record, "severityNumber", "severity_number")
        if type(severity) is str:
            if severity not in SEVERITY_NAMES:
                raise Bad
            severity = SEVERITY_NAMES.index(severity)
        severity = 0 if severity is None else integer(severity, -2**31, 2**31 - 1, True)
        text = get(record, "severityText", "severity_text")
        if text is not None and type(text) is not str:
            raise Bad
        found.append(Logged(time, observed, severity, utf8(text or ""), json_attributes(get(record, "attributes")),
                            resource, utf8(name or "")))
    return found


def from_json(value: bytes) -> list[Logged]:
    def refuse(_constant):
        raise Bad
    try:
        request = json.loads(value.decode("utf-8", "replace"), object_pairs_hook=Obj, parse_constant=refuse)
    except (ValueError, RecursionError):
        raise Bad from None
    if type(request) is not Obj or not objects(get(request, "resourceLogs", "resource_logs")):
        raise Bad
    found = []
    for resource_logs in objects(get(request, "resourceLogs", "resource_logs")):
        resource_object = get(resource_logs, "resource")
        if resource_object is not None and type(resource_object) is not Obj:
            raise Bad
        resource = json_attributes(get(resource_object or Obj(), "attributes"))
        for scope_logs in objects(get(resource_logs, "scopeLogs", "scope_logs")):
            found += json_records(scope_logs, resource)
    return found


SEVERITY_NAMES = ["SEVERITY_NUMBER_UNSPECIFIED"] + [f"SEVERITY_NUMBER_{level}{'' if step == 1 else step}"
                                                    for level in LEVELS for step in range(1, 5)]


class Otlp:
    """The outcomes of each request under one contract (LOG_FORMAT=otlp)."""

    def __init__(self, contract: Contract):
        self.error_severity = int(contract["OTLP_ERROR_SEVERITY"])
        self.error_levels = {upper_ascii(name.strip()).encode() for name in contract["ERROR_LEVELS"].split(",")}
        group_by = contract["GROUP_BY"]
        self.dimensions = [name for name in group_by.split(",") if name and name != "topic"] if group_by else []
        self.every_line = contract["COUNT_LINES"] == "true"
        self.encoding = contract["OTLP_ENCODING"]

    def outcomes(self, value: bytes | None) -> list[Outcome]:
        if value is None:
            return [Outcome("null_value")]
        json_encoded = self.encoding == "json" or self.encoding == "auto" and value[:1] == b"{"
        try:
            logged = from_json(value) if json_encoded else from_proto(value)
        except Bad:
            return [Outcome("bad_otlp")]
        return [self.outcome(record) for record in logged]

    def outcome(self, record: Logged) -> Outcome:
        nanos = record.time or record.observed
        if not nanos:
            return Outcome("bad_timestamp")
        error = (upper_ascii_bytes(record.text) in self.error_levels if record.severity == 0
                 else record.severity >= self.error_severity)
        labelled = self.dimensions and (self.every_line or error)
        series = "\x1f".join(self.value(name, record) for name in self.dimensions) if labelled else None
        return Outcome(None, nanos // NANOS_PER_MINUTE, error, series)

    @staticmethod
    def value(name: str, record: Logged) -> str:
        if name.startswith("resource:"):
            return first(record.resource, name[len("resource:"):].encode())
        if name.startswith("attr:"):
            return first(record.attributes, name[len("attr:"):].encode())
        if name == "scope:name":
            return label(record.scope.decode("utf-8", "replace"))
        if name == "severity":
            return label(record.text.decode("utf-8", "replace"))
        if name == "level":
            if 1 <= record.severity <= 24:
                return LEVELS[(record.severity - 1) // 4]
            if record.severity != 0:
                return str(record.severity)
            return label(upper_ascii_bytes(record.text).decode("utf-8", "replace"))
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
