"""Records what the real Collector writes, for the unit tests that run without it: the log file of
test_collector.py (300 lines) shipped through the Collector (scripts/otelcol.sh) to a topic per
encoding, every Kafka record kept in tests/otel/recorded/collector-<encoding>.bin (each a 4-byte
big-endian length, then the value) beside the log file itself. Needs the stack up (make up):

    .venv/bin/python -m tests.otel.record
"""

import struct
import subprocess
import tempfile
import uuid
from pathlib import Path

from confluent_kafka import Consumer

from errorcount.pipeline.classify import Contract
from errorcount.tools import kafka_admin
from tests.oracles.pyotlp import Otlp
from tests.otel.test_collector import CONFIG, GROUP_BY, write_log
from tests.support import ROOT, wait_until

RECORDED = ROOT / "tests" / "otel" / "recorded"
LINES = 300


def main() -> None:
    binary = subprocess.run([str(ROOT / "scripts" / "otelcol.sh")], capture_output=True, text=True, check=True,
                            timeout=1800).stdout.strip()
    RECORDED.mkdir(parents=True, exist_ok=True)
    write_log(RECORDED / "app.log", LINES)
    topics = {encoding: f"otel-record-{encoding}-{uuid.uuid4().hex[:6]}" for encoding in ("proto", "json")}
    for topic in topics.values():
        kafka_admin.create_topic(topic, 1)
    oracle = Otlp(Contract.with_settings(LOG_FORMAT="otlp", GROUP_BY=GROUP_BY))
    with tempfile.TemporaryDirectory() as work:
        config = Path(work) / "collector.yaml"
        config.write_text(CONFIG.format(log=RECORDED / "app.log", bootstrap=kafka_admin.bootstrap(), **topics))
        collector = subprocess.Popen([binary, "--config", f"file:{config}"], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        try:
            for encoding, topic in topics.items():
                consumer = Consumer({"bootstrap.servers": kafka_admin.bootstrap(), "group.id": uuid.uuid4().hex,
                                     "auto.offset.reset": "earliest"})
                consumer.subscribe([topic])
                values: list[bytes] = []

                def complete(consumer=consumer, values=values) -> bool:
                    message = consumer.poll(0.5)
                    if message is not None and not message.error():
                        values.append(message.value())
                    return sum(len(oracle.outcomes(value)) for value in values) >= LINES
                wait_until(complete, 120, f"the Collector's {encoding} records of {LINES} lines", interval=0)
                consumer.close()
                with open(RECORDED / f"collector-{encoding}.bin", "wb") as out:
                    for value in values:
                        out.write(struct.pack(">i", len(value)) + value)
                print(f"{encoding}: {len(values)} records, {sum(map(len, values))} bytes")
        finally:
            collector.terminate()
            collector.wait(60)
            for topic in topics.values():
                kafka_admin.delete_topic(topic)


if __name__ == "__main__":
    main()
