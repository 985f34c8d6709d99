"""(o) the job on OTLP: the app corpus's very log records (bench/corpus.py's Generator, same seed:
the same minutes, errors and rejects) as OpenTelemetry log records, in export requests of
RECORDS_PER_REQUEST (the Collector's batch processor and Kafka exporter write a batch per record),
once per encoding; (b) and the profile on each, in log records/s against the app corpus's (b)
of the same run. Every count checked exact against the app corpus's expectations."""

import calendar
import json
import random
import struct
import subprocess
from datetime import datetime
from pathlib import Path

from google.protobuf import json_format
from opentelemetry.proto.collector.logs.v1 import logs_service_pb2

from bench import corpus, phases, procs
from bench.corpus import Corpus
from errorcount.tools import kafka_admin, produce

ROOT = Path(__file__).resolve().parents[1]

RECORDS_PER_REQUEST = 100
ENCODINGS = ("proto", "json")
SERVICES = ("checkout", "payments", "search", "auth")
NANOS = 1_000_000_000


def requests(lines: int, seed: int, minutes: int, encoding: str):
    """(value, log records, ERROR minutes, line minutes, rejects) per request: the app corpus's
    lines in order, each line a log record (an ERROR severity 17, another 9; a line the app
    contract rejects has no time, so bad_timestamp), its body the line."""
    lines_of = corpus.Generator(seed, minutes)
    rng = random.Random(seed)
    for first in range(0, lines, RECORDS_PER_REQUEST):
        request = logs_service_pb2.ExportLogsServiceRequest()
        resource_logs = request.resource_logs.add()
        resource_logs.resource.attributes.add(key="service.name").value.string_value = rng.choice(SERVICES)
        records = resource_logs.scope_logs.add().log_records
        errors, line_minutes, rejected = [], [], 0
        for _ in range(min(RECORDS_PER_REQUEST, lines - first)):
            value, error_minute, bad, line_minute = lines_of.event()
            record = records.add()
            record.body.string_value = (value or b"").decode("utf-8", "replace")
            if bad:
                rejected += 1
                continue
            stamp = calendar.timegm(datetime.strptime(line_minute, "%Y-%m-%d %H:%M:00").timetuple())
            record.time_unix_nano = stamp * NANOS + rng.randrange(60 * NANOS)
            record.severity_number = 17 if error_minute else 9
            errors += [error_minute] if error_minute else []
            line_minutes.append(line_minute)
        value = json_format.MessageToJson(request, indent=None).encode() if encoding == "json" else request.SerializeToString()
        yield value, len(records), errors, line_minutes, rejected


def ensure(lines: int, partitions: int, seed: int, minutes: int, cache: Path, log, encoding: str) -> tuple[Corpus, int]:
    """The OTLP corpus topic of `lines` log records in `encoding` (written once, reused), and its log records."""
    topic = f"bench-v{corpus.CORPUS_VERSION}-otlp-{encoding}-{lines}-p{partitions}-s{seed}"
    cached = cache / f"{topic}.json"
    data = json.loads(cached.read_text()) if cached.exists() else {}
    ends = kafka_admin.end_offsets(topic) if kafka_admin.partition_count(topic) else {}
    if not data or sum(ends.values()) != data["requests"]:
        if ends:
            kafka_admin.delete_topic(topic)
        log(f"corpus: writing {lines} log records as otlp_{encoding} requests of {RECORDS_PER_REQUEST} into {topic}")
        kafka_admin.create_topic(topic, partitions)
        writer = produce.Writer(topic, partitions, **{"linger.ms": 50, "queue.buffering.max.messages": 500000})
        counts: dict[str, int] = {}
        data = {"requests": 0, "log_records": 0, "rejected": 0, "value_bytes": 0}
        for index, (value, records, errors, _line_minutes, rejected) in enumerate(requests(lines, seed, minutes, encoding)):
            writer.send(value, index)
            for minute in errors:
                counts[minute] = counts.get(minute, 0) + 1
            data["requests"] += 1
            data["log_records"] += records
            data["rejected"] += rejected
            data["value_bytes"] += len(value)
        writer.flush(300)
        data["expected"] = counts
        cache.mkdir(parents=True, exist_ok=True)
        cached.write_text(json.dumps(data))
    return (Corpus(topic, data["requests"], partitions, data["expected"], data["rejected"], data["value_bytes"], "otlp"),
            data["log_records"])


def otlp_phase(args, app: Corpus, run_dir: Path, cache: Path, log, profile_records: int) -> dict:
    """(b) and its profile per encoding, in log records/s; the ratio to the app corpus's (b) is
    the report's (the same run's b_job)."""
    found = {}
    for encoding in ENCODINGS:
        data, log_records = ensure(app.lines, app.partitions, args.seed, args.minutes, cache, log, encoding)
        if data.expected != app.expected:
            raise phases.BenchError(f"the otlp_{encoding} corpus does not hold the app corpus's errors")
        settings = {"LOG_FORMAT": "otlp", "OTLP_ENCODING": encoding}
        figures = phases.spark_catch_up(data, run_dir, f"b-otlp-{encoding}", **settings)
        found[encoding] = {**figures, "log_records": log_records, "log_records_per_s": log_records / figures["catch_up_s"],
                           "value_bytes": data.value_bytes, "settings": settings,
                           "profile": phases.profile(data, run_dir, profile_records // RECORDS_PER_REQUEST, **settings)}
        log(f"(b) otlp_{encoding}: {found[encoding]['log_records_per_s']:,.0f} log records/s")
    found["decode"] = decode_cost(args.seed, args.minutes, run_dir)
    log(f"otlp_proto decoding, ns per log record: {found['decode']}")
    return found


def decode_cost(seed: int, minutes: int, run_dir: Path, lines: int = 500_000) -> dict:
    """bench/java/OtlpDecode.java on `lines` of the corpus's log records as otlp_proto requests: the
    classifier's reader against protobuf-java's generated classes (and the whole UDF), ns per log record."""
    path = run_dir / "otlp-requests.bin"
    with open(path, "wb") as out:
        for value, _records, _errors, _lines, _rejected in requests(lines, seed, minutes, "proto"):
            out.write(struct.pack(">i", len(value)) + value)
    jars = subprocess.run([str(ROOT / "scripts" / "jars.sh"), "otlp-bench"], check=True, capture_output=True,
                          text=True).stdout.strip()
    pyspark_jars = procs.pyspark_jars()
    classes = run_dir / "otlp-decode-classes"
    path_list = f"{ROOT / '.local' / 'java' / 'errorcount-classify.jar'}:{jars}/*:{pyspark_jars}/*"
    subprocess.run(["javac", "--release", "17", "-d", str(classes), "-cp", path_list,
                    *(str(ROOT / "bench" / "java" / "errorcount" / f"{name}.java") for name in ("OtlpDecode", "ValueFile"))],
                   check=True, timeout=300)
    settings = "LOG_FORMAT=otlp;OTLP_ENCODING=proto;OTLP_ERROR_SEVERITY=17;ERROR_LEVELS=ERROR;COUNT_LINES=false;" \
               "GROUP_BY=resource:service.name;PATH_DEPTH=1"
    out = subprocess.run(["java", "-Xmx2g", "-cp", f"{classes}:{path_list}", "errorcount.OtlpDecode", str(path),
                          str(lines), settings], check=True, capture_output=True, text=True, timeout=1800).stdout
    return json.loads(out.strip().splitlines()[-1])
