"""GROUP_BY's dimensions (docs/contract.md, "Dimensions"): the JVM classifier's series against what
the sample generator wrote, against hand-written cases, and against the plain-Python second
implementation (tests/oracles/pydims.py) on mutated values (DIFFERENTIAL_VALUES; make
differential: millions). Also the settings' rules and the plan's one classifier call."""

import json
import os
import random
from datetime import datetime

import pytest

from errorcount.config import dimensions
from errorcount.errors import ConfigError
from errorcount.pipeline.classify import Contract, classify_lines_df
from errorcount.tools import samples
from tests.oracles.pydims import Dimensions
from tests.unit.pipeline.contract_cases import jvm_series, mutated

S = dimensions.SEPARATOR
GROUPED = {
    "app": Contract.with_settings(LOG_FORMAT="app", GROUP_BY="level"),
    "access": Contract.with_settings(LOG_FORMAT="access", GROUP_BY="status,method,path"),
    "json": Contract.with_settings(LOG_FORMAT="json", ERROR_LEVELS="ERROR,50", GROUP_BY="level,field:service.name"),
}


@pytest.mark.parametrize("log_format", ["app", "access", "json"])
@pytest.mark.parametrize("every_line", [False, True], ids=["errors", "every-line"])
def test_the_series_are_what_the_generator_wrote(spark, log_format, every_line):
    """ERROR lines' series; with COUNT_LINES every line's (a reject has none)."""
    contract = Contract.with_settings(**{**dict(GROUPED[log_format].settings), "COUNT_LINES": str(every_line).lower()})
    names = dimensions.names(contract["GROUP_BY"])
    events = samples.generate(log_format, 3000, 7, datetime(2030, 6, 1), 30)
    got = jvm_series(spark, contract, [e.value for e in events])
    wanted = [S.join(dict(e.labels)[name] for name in names) if (e.minute if every_line else e.error_minute) else None
              for e in events]
    assert got == wanted
    assert len(set(wanted)) > (1 if log_format == "app" else 10)


LINE = b"2024-05-01T10:00:00Z"
ACCESS = b'h - - [01/May/2024:10:00:00 +0000] "%s" 503 1'
# Dotted paths (JsonFields), with and without COUNT_LINES: a parent repeated (the last wins, object
# or not), a literal dotted name first, escaped names, arrays and scalars never stepped into
NESTED = (
    {"LOG_FORMAT": "json", "GROUP_BY": "field:a.b,field:a.c,field:d.e.f,field:g.h", "ERROR_LEVELS": "error"},
    [(b'{"ts": 1, "level": "error", "a": {"b": "x", "c": 1}, "d": {"e": {"f": "deep"}}, "g": {"h": "one", "h": "two"}}',
      f"x{S}1{S}deep{S}two"),
     (b'{"ts": 1, "level": "error", "a": {"b": "first"}, "a": {"c": 2}}', f"{S}2{S}{S}"),
     (b'{"ts": 1, "level": "error", "a": {"b": "x"}, "a": 5, "g": {"h": "y"}}', f"{S}{S}{S}y"),
     (b'{"ts": 1, "level": "error", "a": 5, "a": {"b": "z"}, "d": {"e": 1}}', f"z{S}{S}{S}"),
     (b'{"ts": 1, "level": "error", "a.b": "lit", "a": {"b": "path", "c": "c"}}', f"lit{S}c{S}{S}"),
     (b'{"ts": 1, "level": "error", "\\u0061": {"\\u0062": "esc"}, "d": {"\\u0065": {"f": 3}}}', f"esc{S}{S}3{S}"),
     (b'{"ts": 1, "level": "error", "a": [{"b": "x"}], "d": {"e": [{"f": 1}]}, "g": "h"}', f"{S}{S}{S}"),
     (b'{ "ts": 1, "level" : "error" , "a" : { } , "g" : { "h" : true , "a" : {"b": "no"} } }', f"{S}{S}{S}true")])
HAND = [
    ({"LOG_FORMAT": "app", "ERROR_LEVELS": "error,Fatal", "GROUP_BY": "level"},
     [(LINE + b" [fatal]: x", "FATAL"), (LINE + b" Error", "ERROR"), (LINE + b" INFO x", None)]),
    ({"LOG_FORMAT": "access", "GROUP_BY": "path,method", "PATH_DEPTH": 2},
     [(ACCESS % b"GET /api/v1/users/7?id=1 HTTP/1.1", f"GET{S}/api/v1"), (ACCESS % b"GET //a//b/c#x", f"GET{S}/a/b"),
      (ACCESS % b"GET /?x=/y/z", f"GET{S}/"), (ACCESS % b"", f"{S}"),
      (ACCESS % b"CONNECT host:443 HTTP/1.1", f"CONNECT{S}host:443"),
      (ACCESS % b"GET http://h/a/b?q", f"GET{S}http://h/a/b"), (ACCESS % b"GET  /x", f"GET{S}"),
      (ACCESS % b"\\x16\\x03", f"\\x16\\x03{S}"), (ACCESS % b"GET /caf\xc3\xa9/\xff/z", f"GET{S}/caf\u00e9/\ufffd")]),
    ({"LOG_FORMAT": "access", "GROUP_BY": "status", "ERROR_STATUS_MIN": 404},
     [(ACCESS.replace(b"503", b"404") % b"GET /", "404")]),
    ({"LOG_FORMAT": "json", "GROUP_BY": "level,field:svc,field:n,field:b,field:o,field:gone", "ERROR_LEVELS": "error,50"},
     [(b'{"ts": 1, "level": " error\\t", "svc": " a\\u0000b\\n", "n": -1.50e3, "b": false, "o": {"x": 1}}',
       f"false{S}{S}-1.50e3{S}{S}a\ufffdb{S}ERROR"),
      (b'{"ts": 1, "level": 50, "svc": "' + "\u00e9".encode() * 40 + b'", "n": null}',
       f"{S}{S}{S}{S}" + "\u00e9" * 32 + f"{S}50"),
      (b'{"ts": 1, "level": "ERROR", "svc": "\\ud83d\\ude00\\ud800\xff"}', f"{S}{S}{S}{S}\U0001F600\ufffd\ufffd{S}ERROR")]),
    ({"LOG_FORMAT": "json", "GROUP_BY": "status,field:kubernetes.pod", "JSON_STATUS_FIELD": "http.status"},
     [(b'{"ts": 1, "http": {"status": "0502"}, "kubernetes": {"pod": "web-1"}}', f"web-1{S}502"),
      (b'{"ts": 1, "http": {"status": 200}}', None)]),
    NESTED,
    ({"LOG_FORMAT": "json", "GROUP_BY": "level,field:host.name", "JSON_MESSAGE_FIELD": "message"},
     [(b'{"host": {"name": "n1"}, "message": "' + LINE + b' error boom"}', f"n1{S}ERROR")]),
    ({"LOG_FORMAT": "json", "GROUP_BY": "status,path", "JSON_MESSAGE_FIELD": "log", "MESSAGE_FORMAT": "access"},
     [(json.dumps({"log": (ACCESS % b"PUT /v2/x").decode()}).encode(), f"/v2{S}503")]),
]


@pytest.mark.parametrize("settings, cases", HAND, ids=[str(i) for i in range(len(HAND))])
def test_hand_written_cases(spark, settings, cases):
    contract = Contract.with_settings(**settings, COUNT_LINES="false")  # the cases name the ERROR lines' series only
    values = [value for value, _ in cases]
    assert jvm_series(spark, contract, values) == [series for _, series in cases]
    assert [Dimensions(contract).series(value) for value in values] == [series for _, series in cases]


def test_dotted_paths_read_the_same_with_count_lines(spark):
    """NESTED with COUNT_LINES (every line's series); HAND runs it without."""
    settings, cases = NESTED
    contract = Contract.with_settings(**settings, COUNT_LINES="true")
    assert jvm_series(spark, contract, [value for value, _ in cases]) == [series for _, series in cases]


def test_a_value_is_cut_at_64_bytes_on_a_code_point_boundary(spark):
    contract = Contract.with_settings(LOG_FORMAT="json", GROUP_BY="field:v")
    values = [b'{"ts": 1, "level": "ERROR", "v": "' + b"a" * n + "\U0001F600".encode() + b'"}' for n in (59, 60, 61, 63, 64)]
    assert jvm_series(spark, contract, values) == ["a" * 59 + "\U0001F600", "a" * 60 + "\U0001F600", "a" * 61, "a" * 63, "a" * 64]


def test_without_group_by_there_is_no_series(spark):
    events = samples.generate("json", 300, 3, datetime(2030, 6, 1), 5)
    assert set(jvm_series(spark, Contract.with_settings(LOG_FORMAT="json"), [e.value for e in events])) == {None}


def label_corpus(count: int, seed: int) -> list[bytes]:
    """JSON events whose field v holds random text: escapes, controls, invalid UTF-8, long values."""
    rng = random.Random(seed)
    pieces = [b"a", b" ", b"\\t", b"\\u0000", b"\\u001f", b"\\u007f", b"\\u0085", b"\\u00a0", b"\\ud800", b"\\udc00",
              b"\\ud83d\\ude00", "\u00e9".encode(), "\u20ac".encode(), "\U0001F600".encode(), b"\xff", b"\xc3", b"\xe2\x82",
              b"\xf0\x9f\x98", b"\xed\xa0\x80", b"\xc0\xaf", b"\xf4\x90\x80\x80", b"\\\\", b'\\"', b"\x7f", "\u2028".encode()]
    return [b'{"ts": 1, "level": "ERROR", "v": "' + b"".join(rng.choice(pieces) for _ in range(rng.randrange(80))) + b'"}'
            for _ in range(count)]


def base_of(name: str) -> list[bytes | None]:
    """Generated values for a differential run: samples of a format, app lines wrapped by a
    shipper, or JSON access events with a status field."""
    if name in ("app", "access", "json"):
        return [e.value for e in samples.generate(name, 2000, 11, datetime(2030, 6, 1), 60)]
    lines = [e.value.decode("utf-8", "replace") for e in samples.generate("app" if name == "wrapped" else "access", 2000, 12,
                                                                          datetime(2030, 6, 1), 60) if e.value]
    if name == "wrapped":
        return [json.dumps({"log": {"level": line[-9:]}, "message": line}).encode() for line in lines]
    statuses = (200, 404, 500, 503, 599, 600, 99, "0502", "504", "5x0", 500.0, None)
    return [json.dumps({"ts": 1714557600 + i, "status": statuses[i % len(statuses)], "message": line}).encode()
            for i, line in enumerate(lines)]


DIFFERENTIAL = [
    ("app", Contract.with_settings(LOG_FORMAT="app", GROUP_BY="level", ERROR_LEVELS="ERROR,WARN")),
    ("access", Contract.with_settings(LOG_FORMAT="access", GROUP_BY="status,method,path", PATH_DEPTH=2)),
    ("json", Contract.with_settings(LOG_FORMAT="json", ERROR_LEVELS="ERROR,50", GROUP_BY="level,field:service.name,field:msg")),
    ("wrapped", Contract.with_settings(LOG_FORMAT="json", JSON_MESSAGE_FIELD="message", GROUP_BY="level,field:log.level")),
    ("statuses", Contract.with_settings(LOG_FORMAT="json", JSON_STATUS_FIELD="status", GROUP_BY="status,field:message")),
    ("labels", Contract.with_settings(LOG_FORMAT="json", GROUP_BY="field:v,level")),
    # COUNT_LINES: every line has its series, not only ERROR lines
    ("app", Contract.with_settings(LOG_FORMAT="app", GROUP_BY="level", COUNT_LINES="true")),
    ("access", Contract.with_settings(LOG_FORMAT="access", GROUP_BY="status,method,path", COUNT_LINES="true")),
    ("json", Contract.with_settings(LOG_FORMAT="json", GROUP_BY="level,field:service.name,field:msg", COUNT_LINES="true")),
    ("wrapped", Contract.with_settings(LOG_FORMAT="json", JSON_MESSAGE_FIELD="message", GROUP_BY="level,field:log.level",
                                       COUNT_LINES="true")),
    ("statuses", Contract.with_settings(LOG_FORMAT="json", JSON_STATUS_FIELD="status", GROUP_BY="status,field:message",
                                        COUNT_LINES="true")),
]


@pytest.mark.parametrize("name, contract", DIFFERENTIAL, ids=[f"{n}-{i}" for i, (n, _) in enumerate(DIFFERENTIAL)])
def test_the_classifier_and_the_python_dimensions_agree(spark, name, contract):
    count = int(os.environ.get("DIFFERENTIAL_VALUES", "120000")) // len(DIFFERENTIAL)
    if name == "labels":
        values: list[bytes | None] = label_corpus(count, 5)
    else:
        values = mutated(count, 13, base_of(name), [b" ", b"/", b"?", b"\xff", b"\\", b'"', b"\t", b"[", b"a", b"5"], 80)
    got = jvm_series(spark, contract, values)
    reference = Dimensions(contract)
    disagree = [(v, g, w) for v, g, w in zip(values, got, (reference.series(v) for v in values), strict=True) if g != w]
    assert disagree == [], f"{len(disagree)} of {len(values)} disagree, e.g. {disagree[:3]}"
    assert sum(series is not None for series in got) > count // 20  # the errors were many


def test_group_by_is_checked_against_the_format():
    assert Contract.with_settings(LOG_FORMAT="access", GROUP_BY=" status , path")["GROUP_BY"] == "path,status"
    assert Contract.with_settings(LOG_FORMAT="json", GROUP_BY="level,field:a.b")["GROUP_BY"] == "field:a.b,level"
    assert (Contract.with_settings(LOG_FORMAT="otlp", GROUP_BY="severity,resource:service.name,attr:http.route,scope:name,"
                                   "level,topic")["GROUP_BY"]
            == "attr:http.route,level,resource:service.name,scope:name,severity,topic")
    for settings, says in [({"LOG_FORMAT": "access", "GROUP_BY": "level"}, "not a dimension of LOG_FORMAT=access"),
                           ({"LOG_FORMAT": "app", "GROUP_BY": "field:x"}, "reads a field value"),
                           ({"LOG_FORMAT": "app", "GROUP_BY": "service"}, "'service' is no dimension"),
                           ({"LOG_FORMAT": "json", "GROUP_BY": "status"}, "offered: level, field:<dotted.path>"),
                           ({"LOG_FORMAT": "json", "JSON_STATUS_FIELD": "s", "GROUP_BY": "level"}, "offered: status, field"),
                           ({"LOG_FORMAT": "json", "JSON_MESSAGE_FIELD": "m", "MESSAGE_FORMAT": "access",
                             "GROUP_BY": "path,level"}, "with MESSAGE_FORMAT=access"),
                           ({"LOG_FORMAT": "app", "GROUP_BY": "level,level"}, "names level twice"),
                           ({"LOG_FORMAT": "json", "GROUP_BY": "field:"}, "must name a key"),
                           ({"LOG_FORMAT": "otlp", "GROUP_BY": "field:x"}, "offered: level, scope:name, severity, resource"),
                           ({"LOG_FORMAT": "json", "GROUP_BY": "resource:service.name"}, "reads a resource value"),
                           ({"LOG_FORMAT": "app", "GROUP_BY": "severity"}, "'severity' is not a dimension of LOG_FORMAT=app"),
                           ({"LOG_FORMAT": "otlp", "GROUP_BY": "attr: x"}, "must name a key"),
                           ({"LOG_FORMAT": "otlp", "GROUP_BY": "status"}, "'status' is not a dimension of LOG_FORMAT=otlp"),
                           ({"LOG_FORMAT": "json", "GROUP_BY": ",".join(f"field:f{i}" for i in range(9))}, "at most 8")]:
        with pytest.raises(ConfigError, match=says):
            Contract.with_settings(**settings)


def test_labels_and_keys():
    assert dimensions.labels("field:svc,level", f"a{S}ERROR") == (("field:svc", "a"), ("level", "ERROR"))
    assert dimensions.labels("level", "") == (("level", ""),)
    with pytest.raises(ValueError):
        dimensions.labels("level,status", "x")
    keys = {dimensions.series_key(g, s) for g in ("level", "status") for s in (None, "", "x")}
    assert len(keys) == 6 and all(len(key) == 32 for key in keys)


def test_the_plan_calls_the_classifier_once_per_record(spark):
    contract = GROUPED["json"]
    df = spark.createDataFrame([("logs", 0, 1, b"{}")], "topic string, partition int, offset long, value binary")
    plan = classify_lines_df(df, contract)._jdf.queryExecution().optimizedPlan().toString()
    assert plan.count(contract.function) == 1, plan


@pytest.mark.parametrize("group_by, series", [
    ("level,topic", [f"ERROR{S}logs.a", f"FATAL{S}" + "b" * 64, None, None]),  # topic last, cut at 64 bytes
    ("topic", ["logs.a", "b" * 64, None, None]),                               # the only dimension: no classifier series
])
def test_topic_is_a_dimension_of_every_format_added_after_the_classifiers_values(spark, group_by, series):
    contract = Contract.with_settings(LOG_FORMAT="app", ERROR_LEVELS="ERROR,FATAL", GROUP_BY=group_by,
                                      COUNT_LINES="false")
    assert contract["GROUP_BY"] == group_by and contract.by_topic
    rows = [("logs.a", 0, 1, LINE + b" ERROR x"), ("b" * 70, 0, 2, LINE + b" FATAL y"), ("logs.a", 0, 3, LINE + b" INFO z"),
            ("logs.a", 0, 4, b"not a line")]
    df = spark.createDataFrame(rows, "topic string, partition int, offset long, value binary")
    got = {row["offset"]: row["series"] for row in classify_lines_df(df, contract).collect()}
    assert [got[offset] for offset in (1, 2, 3, 4)] == series
    assert Contract.with_settings(LOG_FORMAT="access", GROUP_BY="topic,status")["GROUP_BY"] == "status,topic"


def test_values_beside_the_stored_fast_path_agree_with_the_python_dimensions(spark):
    """Label.isStored keeps well-formed UTF-8 without controls or blanks at its ends as written:
    the bytes at its edges (C1 controls as raw UTF-8, no-break spaces, characters cut by the end or
    at 64 bytes, overlong and surrogate forms) must still come out as the contract says."""
    contract = Contract.with_settings(LOG_FORMAT="json", GROUP_BY="field:v")
    texts = [b"caf\xc3\xa9-api", b"\xc3\xa9t\xc3\xa9", b"a\xc2\x85b", b"a\xc2\x9fb", b"\xc2\xa0a\xc2\xa0", b"a b", b"\xc2\x80",
             b"a\x7fb", b"\xe2\x82\xac" * 21 + b"a", b"\xe2\x82\xac" * 22, b"a" * 62 + b"\xc3\xa9", b"a" * 63 + b"\xc3\xa9",
             b"\xed\x9f\xbf", b"\xed\xa0\x80", b"\xe0\xa0\x80", b"\xe0\x9f\xbf", b"\xf0\x90\x80\x80", b"\xf4\x8f\xbf\xbf",
             b"\xf4\x90\x80\x80", b"\xc1\xbf", b"a\xc3", b"\xf0\x9f\x98\x80x", b"\xef\xbf\xbd"]
    values = [b'{"ts": 1, "level": "ERROR", "v": "' + text + b'"}' for text in texts]
    reference = Dimensions(contract)
    assert jvm_series(spark, contract, values) == [reference.series(value) for value in values]
    assert reference.series(values[0]) == "caf\u00e9-api" and reference.series(values[2]) == "a\ufffdb"
