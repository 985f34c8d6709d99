"""The JVM's OTLP contract (java/errorcount/ClassifyOtlp.java) against the plain-Python one over the
official opentelemetry-proto package (tests/oracles/pyotlp.py): generated export requests, the
edges the contract names (times 0 and huge, every severity, empty resources, many scopes, unknown
fields and groups, deep nesting) and mutations of them (truncations, stray bytes, random edits).
DIFFERENTIAL_VALUES sets how many generated requests (make differential: many more)."""

import os
import random
import re
from collections import Counter
from datetime import UTC, datetime, timedelta

from google.protobuf import json_format
from opentelemetry.proto.collector.logs.v1 import logs_service_pb2
from pyspark.sql import functions as F

from errorcount.offsets import TopicPartition
from errorcount.pipeline.classify import Contract, classify_lines_df, outcomes, register_classifier
from tests.oracles.catalyst import batch_summary_df
from tests.oracles.pyfold import summarize
from tests.oracles.pyotlp import Otlp, Outcome, Record, request
from tests.support import ROOT

RECORDED = ROOT / "tests" / "otel" / "recorded"  # the real Collector's records (tests/otel/record.py)
COUNT = int(os.environ.get("DIFFERENTIAL_VALUES", "20000")) // 20  # requests of ~15 log records each
GROUPED = Contract.with_settings(LOG_FORMAT="otlp", GROUP_BY="resource:service.name,attr:http.route,scope:name,severity,"
                                 "level,attr:n", COUNT_LINES="true", ERROR_LEVELS="ERROR,crit")
PLAIN = Contract.with_settings(LOG_FORMAT="otlp", OTLP_ERROR_SEVERITY="21")
MINUTE_NS = 60_000_000_000
TIMES = [0, 1, MINUTE_NS - 1, MINUTE_NS, 1_714_557_600_123_456_789, 2**63 - 1, 2**63, 2**64 - 1]
TEXTS = ["", "ERROR", "error", "Crit", "WARN", " ERROR", "é", "\x00x", "x" * 80]
SERVICES = ["checkout", "", " pay ", "ünïcode", "a" * 70]


def jvm_outcomes(spark, contract: Contract, values: list[bytes | None]) -> list[list[Outcome]]:
    """The classifier's outcomes of each value, as the oracle states them."""
    function = register_classifier(spark, contract)
    codes = outcomes(spark)
    df = spark.createDataFrame([(i, v) for i, v in enumerate(values)], "i long, value binary")
    rows = sorted(df.select("i", F.call_function(function, "value").alias("o")).collect())
    found = []
    for row in rows:
        mine = []
        for packed, series in row["o"]:
            code, minute = packed & ((1 << codes.code_bits) - 1), packed >> codes.code_bits
            if code in codes.reasons:
                mine.append(Outcome(codes.reasons[code]))
            else:
                mine.append(Outcome(None, minute, code == codes.error, series))
        found.append(mine)
    return found


def as_json(rng: random.Random, value: bytes) -> bytes:
    """A request as otlp_json, written the ways protobuf's JSON mapping allows: lowerCamelCase or
    proto names, enums as numbers or names, compact or indented."""
    message = logs_service_pb2.ExportLogsServiceRequest.FromString(value)
    return json_format.MessageToJson(message, preserving_proto_field_name=rng.random() < 0.3,
                                     use_integers_for_enums=rng.random() < 0.7,
                                     indent=None if rng.random() < 0.7 else 2).encode()


JSON_STRAY = [b"{", b"}", b'"', b"\\", b",", b":", b"[", b"]", b"\x00", b"\xff", b" ", b"\n", b"-", b"0", b"9", b"n",
              b"null", b"1.5", b"e3", b'"x"', b"true", b"[]", b"{}", b'"-1"', b'"18446744073709551616"']


def json_edges() -> list[bytes]:
    """otlp_json the generator does not write: integers at and past their bounds, as strings and
    numbers, names twice, members twice, nulls, escapes, types that are not the field's."""
    times = ['"0"', "0", '"60000000000"', "60000000000", '"18446744073709551615"', '"18446744073709551616"', "-0", "-1",
             '"-1"', '"+1"', '" 1"', "1.0", "1e10", '"1e10"', '"\\u0036\\u0030000000000"', "null", '""', "true", "{}"]
    severities = ["17", "-2147483648", "2147483648", '"SEVERITY_NUMBER_ERROR3"', '"SEVERITY_NUMBER_error"', '"17"', "17.0",
                  "null", "[]"]
    texts = ['"ERROR"', '"\\u0045RROR"', '"\\ud800"', "null", "3", '"\xc3("']
    values = ['{"stringValue": "a"}', '{"intValue": "-9223372036854775808"}', '{"intValue": "9223372036854775808"}',
              '{"intValue": 5, "stringValue": "late"}', '{"stringValue": "x", "stringValue": null}', '{"boolValue": 1}',
              '{"boolValue": false}', '{"doubleValue": "NaN"}', '{"stringValue": 3}', '{"kvlistValue": {"values": 7}}',
              '{"int_value": "007"}', "null", "[]"]
    attributes = [f'[{{"key": "n", "value": {v}}}]' for v in values] + ['[{"key": 5}]', "[null]", "{}", "null"]
    base = {"timeUnixNano": '"60000000000"', "severityNumber": "17", "severityText": '"ERROR"', "attributes": "[]"}
    cases = []  # the base with one field changed at a time
    for name, variants in (("timeUnixNano", times), ("severityNumber", severities), ("severityText", texts),
                           ("attributes", attributes)):
        for variant in variants:
            one = ", ".join(f'"{field}": {variant if field == name else value}' for field, value in base.items())
            cases.append(f'{{"resourceLogs": [{{"scopeLogs": [{{"logRecords": [{{{one}}}]}}]}}]}}')
    return [c.encode() for c in cases] + [b'{"resource_logs": [], "resourceLogs": [{"scopeLogs": [{"logRecords": [{}]}]}]}',
                                          b'{"resourceLogs": null}', b'{"resourceLogs": {}}', b"[]", b'{"a": 1} x', b"{",
                                          b'{"resourceLogs": [{"resource": {"attributes": [{"key": "service.name", '
                                          b'"value": {"stringValue": "pay"}}]}, "scopeLogs": [{"scope": {"name": "s"}, '
                                          b'"logRecords": [{"observedTimeUnixNano": "61000000000", "severityText": "crit"}]}]}]}']


def generated(rng: random.Random, count: int) -> list[bytes]:
    values = []
    for _ in range(count):
        resources = []
        for _r in range(rng.choice([0, 1, 1, 2, 3])):
            attributes = {k: v for k, v in [("service.name", rng.choice(SERVICES + [7, True, 1.5])), ("host", "h")]
                          if rng.random() < 0.7}
            scopes = [(rng.choice(["", "app", "lib\x01x"]), [record(rng) for _ in range(rng.choice([0, 1, 2, 5]))])
                      for _s in range(rng.choice([0, 1, 2]))]
            resources.append((attributes, scopes))
        values.append(request(resources).SerializeToString())
    return values


def record(rng: random.Random) -> Record:
    attributes = {k: v for k, v in [("http.route", rng.choice(["/a", "/b/c", "", b"raw", 12])), ("n", rng.randint(-5, 5))]
                  if rng.random() < 0.6}
    return Record(rng.choice(TIMES), rng.choice([0, 0, 1, 9, 13, 16, 17, 20, 21, 24, 25, 99, -3]), rng.choice(TEXTS),
                  rng.choice(["", "a body", ["x", 1, {"k": [True, 2.5]}], {"msg": "m", "n": {"deep": [b"b"]}}]), attributes,
                  rng.choice(TIMES))


def mutated(rng: random.Random, values: list[bytes], count: int) -> list[bytes]:
    stray = [b"\x00", b"\x08", b"\x0a", b"\x0b", b"\x0c", b"\x12", b"\x1a", b"\x80", b"\xff", b"\x7b", b"\x09", b"\x11"]
    found = []
    for _ in range(count):
        value = rng.choice(values)
        at = rng.randrange(len(value) + 1)
        roll = rng.random()
        if roll < 0.3:
            found.append(value[:at])
        elif roll < 0.6:
            found.append(value[:at] + rng.choice(stray) + value[at:])
        elif roll < 0.9:
            found.append(value[:at] + bytes([rng.randrange(256)]) + value[at + 1:])
        else:
            found.append(bytes(rng.randrange(256) for _ in range(rng.randrange(40))))
    return found


def varint(n: int) -> bytes:
    out = b""
    while True:
        low, n = n & 0x7F, n >> 7
        if not n:
            return out + bytes([low])
        out += bytes([low | 0x80])


def field(number: int, payload: bytes) -> bytes:
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def edges() -> dict[str, bytes | None]:
    """What the contract names: unknown fields and groups (skipped), wrong wire types, deep bodies."""
    record = b"\x09" + (MINUTE_NS * 3).to_bytes(8, "little") + b"\x10\x11"
    resource_logs = field(2, field(2, record))
    # field 14's group: 15's would start with '{', which OTLP_ENCODING=auto takes for otlp_json
    group = varint(14 << 3 | 3) + b"\x08\x01" + varint(16 << 3 | 3) + varint(16 << 3 | 4) + varint(14 << 3 | 4)
    # a tag of field number 0 inside a group (its varint, then a length-delimited one in a group in it):
    # upb skips them, protobuf-java and Go refuse them, as everyone does outside a group
    zero = varint(14 << 3 | 3) + b"\x00\x01" + varint(14 << 3 | 4)
    deep_zero = varint(14 << 3 | 3) + varint(16 << 3 | 3) + b"\x02\x00" + varint(16 << 3 | 4) + varint(14 << 3 | 4)
    cases: dict[str, bytes | None] = {
        "null": None, "empty": b"", "empty resource": field(1, b""), "unknown field only": field(99, b"x"),
        "one record": field(1, resource_logs),
        "unknown field": field(1, resource_logs) + field(99, b"junk"), "unknown group": group + field(1, resource_logs),
        "group inside": field(1, group + resource_logs), "unmatched end": varint(15 << 3 | 4),
        "open group": varint(15 << 3 | 3), "varint first": b"\x08\x01" + field(1, resource_logs),
        "time as varint": field(1, field(2, field(2, b"\x08\x05" + b"\x09" + (5).to_bytes(8, "little")))),
        "wire type 6": varint(1 << 3 | 6), "wire type 7": varint(1 << 3 | 7), "length past end": b"\x0a\x80\x80\x80\x80\x10",
        "zero tag in a group": field(1, field(2, zero + field(2, record))),
        "zero tag deeper": field(1, field(2, field(2, record + deep_zero))), "zero tag first": zero + field(1, resource_logs),
        "kvlist at 101": field(1, field(2, field(2, record + field(5, body(47, kvlist=True))))),
    }
    for depth in (46, 47, 48, 49):  # 4 + 2 x depth levels: 100 is protobuf's limit
        cases[f"{depth} arrays"] = field(1, field(2, field(2, record + field(5, body(depth)))))
    return cases


def body(depth: int, kvlist: bool = False) -> bytes:
    """An AnyValue nesting `depth` arrays (then a map, 3 levels more, with `kvlist`)."""
    value = field(1, b"x")
    if kvlist:
        value = field(6, field(1, field(1, b"k") + field(2, value)))
    for _ in range(depth):
        value = field(5, field(1, value))
    return value


def agree(spark, contract: Contract, values: list[bytes | None]) -> None:
    oracle = Otlp(contract)
    got = jvm_outcomes(spark, contract, values)
    disagree = [(v, g, w) for v, g, w in zip(values, got, (oracle.outcomes(v) for v in values), strict=True) if g != w]
    assert disagree == [], f"{len(disagree)} of {len(values)} disagree, e.g. {disagree[:2]}"


def test_generated_requests_and_their_mutations_agree_with_the_official_decoder(spark):
    rng = random.Random(45)
    values = generated(rng, COUNT)
    values += mutated(rng, values, COUNT * 3)
    for contract in (GROUPED, PLAIN):
        agree(spark, contract, values)
    counted = [o for v in values for o in Otlp(GROUPED).outcomes(v)]
    reasons = {o.reason for o in counted}
    assert {None, "bad_otlp", "bad_timestamp"} <= reasons  # each path was taken
    assert sum(o.error for o in counted) > len(values) // 10


def test_otlp_json_agrees_with_the_plain_python_reading_and_with_the_same_request_in_otlp_proto(spark):
    rng = random.Random(17)
    protos = generated(rng, COUNT)
    jsons = [as_json(rng, value) for value in protos]
    json_contract = Contract.with_settings(**{**dict(GROUPED.settings), "OTLP_ENCODING": "json"})
    assert jvm_outcomes(spark, GROUPED, jsons) == jvm_outcomes(spark, GROUPED, protos)  # auto: '{' is JSON
    stray = []
    for _ in range(COUNT * 3):
        value = rng.choice(jsons)
        at = rng.randrange(len(value) + 1)
        stray.append(value[:at] if rng.random() < 0.2 else value[:at] + rng.choice(JSON_STRAY) + value[at + rng.randrange(2):])
    for contract in (GROUPED, json_contract):
        agree(spark, contract, jsons + stray + json_edges())
    reasons = [o.reason for v in stray for o in Otlp(GROUPED).outcomes(v)]
    assert reasons.count("bad_otlp") > len(stray) // 4 and reasons.count(None) > len(stray) // 4


def test_the_edges_agree_with_the_official_decoder(spark):
    cases = edges()
    agree(spark, GROUPED, list(cases.values()))
    reasons = {name: [o.reason for o in Otlp(GROUPED).outcomes(value)] for name, value in cases.items()}
    assert reasons["48 arrays"] == [None] and reasons["49 arrays"] == reasons["kvlist at 101"] == ["bad_otlp"]
    assert reasons["unknown group"] == reasons["group inside"] == reasons["varint first"] == [None]
    assert reasons["empty"] == reasons["unknown field only"] == ["bad_otlp"] and reasons["empty resource"] == []
    assert reasons["zero tag in a group"] == reasons["zero tag deeper"] == reasons["zero tag first"] == ["bad_otlp"]


def test_a_request_holds_many_log_records_with_their_own_minutes_and_labels():
    assert Otlp(GROUPED).outcomes(request([({"service.name": "pay"}, [("s", [
        Record(MINUTE_NS * 2 + 5, 17, "", attributes={"http.route": "/x"}), Record(0, 9, "", observed_ns=MINUTE_NS),
        Record(0, 0, "crit")])])]).SerializeToString()) == [
        Outcome(None, 2, True, "/x\x1f\x1fERROR\x1fpay\x1fs\x1f"), Outcome(None, 1, False, "\x1f\x1fINFO\x1fpay\x1fs\x1f"),
        Outcome("bad_timestamp")]


def test_a_batch_counts_records_log_records_lines_errors_and_rejects_as_the_oracle_does(spark):
    """The plan (classify_lines_df's explode, batch_summary_df, summarize) on requests, against
    totals added up here from the oracle's outcomes per log record."""
    rng = random.Random(7)
    values = generated(rng, 200) + [None, b"\xff", request([]).SerializeToString()]
    values += mutated(rng, values, 100)
    df = spark.createDataFrame([("otlp", i % 3, i, v) for i, v in enumerate(values)],
                               "topic string, partition int, offset long, value binary")
    summary = summarize(batch_summary_df(classify_lines_df(df, GROUPED), 10, every_line=True).collect(), every_line=True)
    found = [Otlp(GROUPED).outcomes(v) for v in values]
    logged = [o for outcomes_of in found for o in outcomes_of if o.reason not in ("bad_otlp", "null_value")]
    lines, errors, series = Counter(), Counter(), Counter()
    for o in (o for outcomes_of in found for o in outcomes_of if o.reason is None):
        lines[o.minute] += 1
        errors[o.minute] += o.error
        series[o.minute, o.series] += 1
    assert summary.records == len(values) and summary.records_logged == len(logged)
    assert summary.rejected == sum(o.reason is not None for outcomes_of in found for o in outcomes_of)
    assert summary.minute_lines == dict(lines) and summary.minute_counts == dict(errors)
    assert summary.series_lines == dict(series) and summary.errors == sum(errors.values())
    assert summary.ranges == {TopicPartition("otlp", p): (p, max(i for i in range(len(values)) if i % 3 == p)) for p in range(3)}
    assert len({letter[:3] for letter in summary.dead_letters}) == len(summary.dead_letters) > 0


def recorded(encoding: str) -> list[bytes]:
    """What the real Collector wrote (tests/otel/record.py), one value per Kafka record."""
    data, values, at = (RECORDED / f"collector-{encoding}.bin").read_bytes(), [], 0
    while at < len(data):
        size = int.from_bytes(data[at:at + 4], "big")
        values.append(data[at + 4:at + 4 + size])
        at += 4 + size
    return values


def test_what_the_real_collector_wrote_counts_as_its_log_file_says(spark):
    """The Collector's own otlp_proto and otlp_json (its filelog receiver's time, severity and
    attribute parsing of tests/otel/recorded/app.log) against that file read here with `re` and
    datetime: errors and lines per minute, errors per service and route."""
    errors, lines, series = Counter(), Counter(), Counter()
    for line in (RECORDED / "app.log").read_text(encoding="utf-8").splitlines():
        stamp, level, service, route = re.match(r"(\S+) (\S+) service=(\S+) route=(\S*) ", line).groups()
        minute = datetime.fromisoformat(stamp).astimezone(UTC).strftime("%Y-%m-%d %H:%M")
        lines[minute] += 1
        if level.upper() in ("ERROR", "FATAL"):
            errors[minute] += 1
            series[minute, f"{route}\x1f{service}"] += 1
    contract = Contract.with_settings(LOG_FORMAT="otlp", GROUP_BY="resource:service.name,attr:http.route")
    for encoding in ("proto", "json"):
        values = recorded(encoding)
        found = [o for outcomes_of in jvm_outcomes(spark, contract, values) for o in outcomes_of]
        assert [o.reason for o in found] == [None] * len(found), encoding
        minutes = [(datetime(1970, 1, 1) + timedelta(minutes=o.minute)).strftime("%Y-%m-%d %H:%M") for o in found]
        assert Counter(minutes) == lines, encoding
        assert Counter(m for m, o in zip(minutes, found, strict=True) if o.error) == errors, encoding
        assert Counter((m, o.series) for m, o in zip(minutes, found, strict=True) if o.error) == series, encoding
        agree(spark, contract, values)
