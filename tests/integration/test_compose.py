"""docker-compose.yml is valid and offers what the native stack offers: same versions, same
ports, the schema as init SQL, passwords only as secret files. (No Docker engine runs here, so
the file is validated with `docker-compose config`, which make test installs.)"""

from tests.support import ROOT, compose_config, local_stack


def test_compose_file_is_valid_and_pinned_like_the_native_stack():
    env = local_stack()
    text = compose_config()
    assert f"image: apache/kafka:{env['KAFKA_VERSION']}" in text
    assert f"image: mysql:{env['MYSQL_IMAGE_VERSION']}" in text
    assert f"127.0.0.1:{env['KAFKA_PORT']}:9092/tcp" in text
    assert f"127.0.0.1:{env['MYSQL_PORT']}:3306/tcp" in text
    assert "/docker-entrypoint-initdb.d/10-schema.sql" in text
    assert "/docker-entrypoint-initdb.d/20-grants.sql" in text
    assert "MYSQL_PASSWORD_FILE: /run/secrets/mysql_password" in text


def test_compose_file_holds_no_password():
    text = (ROOT / "docker-compose.yml").read_text(encoding="utf-8")
    for secret in ("mysql_password", "mysql_root_password"):
        value = (ROOT / ".local" / "secrets" / secret).read_text(encoding="utf-8").strip()
        assert value not in text
    assert "MYSQL_ROOT_PASSWORD:" not in text and "MYSQL_PASSWORD:" not in text
