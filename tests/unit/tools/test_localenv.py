"""errorcount/tools/localenv.py: what scripts/lib.sh reads in one call comes from one read of the
config file, and says what the job would use."""

from errorcount.config import load
from errorcount.tools import localenv


def test_the_shell_records_read_the_config_file_once_and_hold_the_files_values(tmp_path, monkeypatch):
    config = tmp_path / "job.conf"
    config.write_text("KAFKA_TOPIC=from-the-file\nMYSQL_PORT=3399\nTRIGGER_INTERVAL=not an interval\n", encoding="utf-8")
    reads = []
    real = load.read_config_file
    monkeypatch.setattr(load, "read_config_file", lambda path: reads.append(path) or real(path))
    records = localenv.shell_records({"CONFIG": str(config), "COUNTS_TABLE": "from_the_env"})
    assert reads == [str(config)]
    assert "setting KAFKA_TOPIC=from-the-file" in records and "stack MYSQL_PORT=3399" in records
    assert "stack COUNTS_TABLE=from_the_env" in records and "setting COUNTS_TABLE=from_the_env" in records
    assert any(record.startswith("invalid TRIGGER_INTERVAL=") for record in records)  # said, the others still given
