"""docker-compose.yml is valid and offers what the native stack offers: same versions, same
ports, the schema and the grants (with the stack's names) as init scripts, passwords only as
secret files, exact image versions, Grafana started after MySQL is healthy. (No Docker engine runs
here, so the file is validated with `docker-compose config`, which make test installs.)"""

import os
import re
import subprocess

import pytest
import yaml

from tests.support import ROOT, compose_config, local_stack, served, unique, wait_until


def test_compose_file_is_valid_and_pinned_like_the_native_stack():
    env = local_stack()
    text = compose_config()
    assert f"image: apache/kafka:{env['KAFKA_VERSION']}" in text
    assert f"image: mysql:{env['MYSQL_IMAGE_VERSION']}" in text
    assert f"127.0.0.1:{env['KAFKA_PORT']}:9092/tcp" in text
    assert f"127.0.0.1:{env['MYSQL_PORT']}:3306/tcp" in text
    assert "/docker-entrypoint-initdb.d/10-schema.sql" in text
    assert "/docker-entrypoint-initdb.d/20-grants.sh" in text
    assert "MYSQL_PASSWORD_FILE: /run/secrets/mysql_password" in text


def test_every_image_is_an_exact_version_and_grafana_waits_for_a_healthy_mysql():
    config = yaml.safe_load(compose_config())
    images = {name: service["image"] for name, service in config["services"].items()}
    assert set(images) == {"kafka", "mysql", "prometheus", "grafana"}
    for name, image in images.items():
        assert re.fullmatch(r"[\w./-]+:v?\d+\.\d+\.\d+", image), f"{name}: {image} is not an exact version"
    assert config["services"]["grafana"]["depends_on"]["mysql"]["condition"] == "service_healthy"
    assert "version" not in yaml.safe_load((ROOT / "docker-compose.yml").read_text(encoding="utf-8"))


def test_the_grants_init_script_puts_in_the_stacks_names():
    """What the mysql image's entrypoint runs, with its docker_process_sql replaced by `cat`."""
    script = f"docker_process_sql() {{ cat; }}; source {ROOT / 'scripts' / 'compose-grants.sh'}"
    env = {**os.environ, "MYSQL_DATABASE": "logs_db", "MYSQL_USER": "counter", "GRANTS_SQL": str(ROOT / "sql" / "grants.sql"),
           "SQL_TEMPLATE": str(ROOT / "scripts" / "sql-template.sh")}
    sql = subprocess.run(["bash", "-c", script], env=env, capture_output=True, text=True, check=True).stdout
    statements = [line for line in sql.splitlines() if re.match(r"(GRANT|REVOKE) ", line)]
    assert len(statements) >= 4
    assert all("`logs_db`." in line and "'counter'@'%'" in line for line in statements)
    assert "errorcount" not in "\n".join(statements)


def test_the_init_scripts_find_the_template_where_compose_mounts_it():
    mounts = [str(m).split(":") for m in yaml.safe_load(compose_config())["services"]["mysql"]["volumes"]]  # SRC:TARGET:MODE
    target = next(parts[1] for parts in mounts if parts[0].endswith("scripts/sql-template.sh"))
    for script in ("compose-grants.sh", "compose-grafana-reader.sh"):
        assert f'${{SQL_TEMPLATE:-{target}}}' in (ROOT / "scripts" / script).read_text(encoding="utf-8")


def test_compose_file_holds_no_password():
    text = (ROOT / "docker-compose.yml").read_text(encoding="utf-8")
    for secret in ("mysql_password", "mysql_root_password"):
        value = (ROOT / ".local" / "secrets" / secret).read_text(encoding="utf-8").strip()
        assert value not in text
    assert "MYSQL_ROOT_PASSWORD:" not in text and "MYSQL_PASSWORD:" not in text


@pytest.mark.slow
def test_make_run_serves_the_metrics_the_compose_prometheus_scrapes(clean_error_log, make_topic, start_driver):
    """With the compose stack (STACK=docker here names it without an engine: the native servers
    answer on the same ports), scripts/run.sh serves the job's metrics on the port
    conf/prometheus/prometheus.yml scrapes, on every address; METRICS_PORT in the environment wins."""
    scraped = yaml.safe_load((ROOT / "conf" / "prometheus" / "prometheus.yml").read_text(encoding="utf-8"))
    port = int(scraped["scrape_configs"][0]["static_configs"][0]["targets"][0].rpartition(":")[2])
    topic, job = make_topic(partitions=1), unique("job")
    driver = start_driver(job, topic, env={"STACK": "docker"})
    metrics = wait_until(lambda: served(driver, f"127.0.0.1:{port}", "errorcount_epoch", f'job_name="{job}"'), 120,
                         "the driver's metrics on the port the compose Prometheus scrapes")
    assert metrics == 1.0
    assert f"serving the job's metrics on 0.0.0.0:{port}" in driver.log()
    assert driver.stop() == 0, driver.log()[-3000:]
    chosen = start_driver(job, topic, env={"STACK": "docker", "METRICS_PORT": "0"})
    wait_until(lambda: chosen.check_alive() or "query 1:" in chosen.log(), 120, "the second driver's query")
    assert "serving the job's metrics" not in chosen.log()
    assert chosen.stop() == 0, chosen.log()[-3000:]
