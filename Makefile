# Error-log counter: Kafka -> Spark Structured Streaming -> MySQL, exactly once.
# `make help` lists the targets. Versions are pinned in requirements.txt and .env.

SHELL := /bin/bash
.DEFAULT_GOAL := help
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: help setup venv java jars up down status topic run recount produce counts report test test-unit test-integration \
        test-faults test-mysql chaos bench lint typecheck config-docs check differential compose-check schema clean package submit-yarn stop-yarn \
        yarn-up yarn-down yarn-test fresh-check otel-check rules-check class-archive

help: ## Show this help
	@grep -hE '^[a-z][a-zA-Z_-]*:.*## ' $(MAKEFILE_LIST) | \
	  awk 'BEGIN {FS = ":.*## "}; {printf "  make %-18s %s\n", $$1, $$2}'

# pip shows what it fetches with its size (pyspark alone is ~450 MB) and, in a terminal, how far.
$(STAMP): requirements.txt requirements-driver.txt requirements-tools.txt pyproject.toml | setup
	@test -x $(PY) || { echo "creating the virtualenv $(VENV)"; $(PYTHON) -m venv $(VENV); }
	$(PY) -m pip install --upgrade pip
	$(PY) -m pip install -r requirements.txt
	@$(PY) -m pip install -q --no-deps --no-build-isolation -e .
	@touch $(STAMP)

setup: ## Install the system packages the project needs, once, as root or through sudo (Debian 12, Ubuntu 24.04)
	@scripts/setup.sh

venv: $(STAMP) ## Create .venv with the pinned Python dependencies

# The contract as a JVM class (java/), and the driver's bulk Kafka look-ups (KafkaOffsets): compiled
# against pyspark's own jars and the Kafka connector's (scripts/jars.sh) with the JDK the project
# requires; the jar is reproducible (sorted entries, fixed times).
CLASSIFIER := .local/java/errorcount-classify.jar
$(CLASSIFIER): $(wildcard java/errorcount/*.java) $(STAMP)
	@rm -rf .local/java/classes && mkdir -p .local/java/classes
	@kafka=$$(scripts/jars.sh spark | tr ',' ':') && \
	javac --release 17 -encoding UTF-8 -cp "$$($(PY) -c 'import os, pyspark; print(os.path.dirname(pyspark.__file__))')/jars/*:$$kafka" \
	  -d .local/java/classes $(sort $(wildcard java/errorcount/*.java))
	@jar --create --date=1980-01-01T00:00:02Z --no-manifest --file $@ -C .local/java/classes .
	@echo "built $@"

java: $(CLASSIFIER) ## Compile the JVM log-line classifier (java/) into .local/java

jars: venv ## Resolve the Spark Kafka connector and Kafka broker jars into .local/jars
	@scripts/jars.sh spark >/dev/null
	@scripts/jars.sh kafka >/dev/null

up: venv ## Start Kafka + MySQL (Docker if an engine answers, else native KRaft Kafka + MYSQL_SERVER: mariadb|mysql)
	@scripts/stack.sh up

down: venv ## Stop Kafka + the SQL server, whichever runs (data is kept in .local/ or the Docker volumes)
	@scripts/stack.sh down

status: venv ## Show whether Kafka and MySQL are up
	@scripts/stack.sh status

schema: venv ## Apply sql/schema.sql to the configured MySQL (admin credentials)
	@scripts/stack.sh schema

topic: venv ## Create the configured topic if missing (KAFKA_TOPIC, TOPIC_PARTITIONS)
	@scripts/run.sh topic

run: setup venv java ## Run the streaming job in the foreground (local[*]); starts the local stack if needed (ARGS: run.sh's and the job's flags)
	@scripts/run.sh job $(ARGS)

recount: setup venv java ## Recount FROM='YYYY-MM-DD HH:MM' to TO (UTC) under the job's current settings while it runs (DRY_RUN=1: show the changes, write nothing)
	@FROM="$(FROM)" TO="$(TO)" DRY_RUN="$(DRY_RUN)" scripts/run.sh recount

produce: venv ## Write sample records to the topic (LINES=10000, FORMAT=app|access|json|otlp) and print what they count
	@scripts/run.sh produce

counts: venv ## Show the newest per-minute ERROR counts, lines and ratio (ROWS=20; COMPLETE=1: complete minutes only; BY=<dimension>: per value of a GROUP_BY dimension)
	@$(PY) -m errorcount.tools.counts

report: venv ## Draw errors, rejects, commits and the top series per minute as .local/report/report.png and .html (SINCE=24h UNTIL=0s: ISO times or 30m, 2h, 7d; BY=<dimension>)
	$(PY) -m errorcount.tools.report --since "$${SINCE:-24h}" --until "$${UNTIL:-0s}" --by "$${BY:-}"

check: lint typecheck java jars ## Lint, type check, unit tests, no services (a couple of minutes): before each commit
	$(PY) -m pytest -q tests/unit -m "not slow"

differential: java jars ## The JVM classifier against tests/oracles/pyparse.py, pyformats.py, pydims.py and pyotlp.py on DIFFERENTIAL_VALUES (3000000) values per format
	DIFFERENTIAL_VALUES=$${DIFFERENTIAL_VALUES:-3000000} PYSPARK_SUBMIT_ARGS="--driver-memory 6g pyspark-shell" $(PY) -m pytest -q tests/unit/pipeline/test_classify_differential.py tests/unit/pipeline/test_classify_formats_differential.py tests/unit/config/test_dimensions.py tests/unit/pipeline/test_classify_otlp.py tests/unit/pipeline/test_one_pass.py

config-docs: venv ## Regenerate conf/errorcount.conf, errorcount/config/config_type.py and the table of docs/configuration.md from errorcount/config/settings.py
	$(PY) -m errorcount.config conf > conf/errorcount.conf
	$(PY) -m errorcount.config type > .local/config_type.py && mv .local/config_type.py errorcount/config/config_type.py
	$(PY) -m errorcount.config docs docs/configuration.md

lint: venv ## Lint Python code with ruff
	$(VENV)/bin/ruff check errorcount tests bench

typecheck: venv ## Type-check errorcount/ with mypy (pinned in requirements.txt, settings in pyproject.toml)
	$(VENV)/bin/mypy

compose-check: venv ## Validate docker-compose.yml with docker-compose config
	@scripts/stack.sh compose-check

test-unit: venv java jars ## Unit tests (one local SparkSession, no services)
	$(PY) -m pytest tests/unit

test-integration: java up class-archive ## Integration tests against the real Kafka and MariaDB
	$(PY) -m pytest tests/integration

test-faults: java up class-archive ## Fault tests (crashes, outages, zombies, data loss) against the real Kafka and MariaDB
	$(PY) -m pytest tests/faults

test-mysql: venv java jars ## The tests marked `mysql` again on real MySQL 8.0 (stops MariaDB; MySQL stays up after)
	@scripts/db.sh stop
	@MYSQL_SERVER=mysql scripts/stack.sh up
	@MYSQL_SERVER=mysql $(PY) -m tests.harness.class_archive
	MYSQL_SERVER=mysql $(PY) -m pytest -m mysql tests/integration tests/faults

class-archive: java jars up ## Build the test drivers' class-data archive unless this JVM and Spark's jars have one (~45 s; faster driver starts)
	@$(PY) -m tests.harness.class_archive

chaos: java up ## Kill -9 the driver or the SQL server under a steady producer (CHAOS_ARGS); exact or fail; writes .local/chaos/RELIABILITY.md (CHAOS_REPORT=docs/RELIABILITY.md for the documented run)
	$(PY) -m tests.chaos.run --report "$${CHAOS_REPORT:-.local/chaos/RELIABILITY.md}" $(CHAOS_ARGS)

bench: java jars up ## Measure the job against Kafka's read ceiling and the alternatives (BENCH_LINES=5000000); writes bench/
	$(PY) -m bench

package: java jars ## Build the YARN bundle in .local/package (app zip, packed Python env, connector and classifier jars, conf)
	@$(PY) -m errorcount.tools.package .local/package "$$(scripts/jars.sh spark),$(CLASSIFIER)"

submit-yarn: package ## Submit the job to YARN in cluster mode (HADOOP_CONF_DIR; see docs/yarn.md)
	@scripts/submit-yarn.sh

stop-yarn: ## Stop the job on YARN at a batch boundary via its STOP_MARKER (KILL=1: yarn application -kill)
	@scripts/stop-yarn.sh $(if $(KILL),--kill)

yarn-up: jars ## Start a local MiniYARNCluster (no HDFS) for tests; its config lands in .local/yarn/conf
	@scripts/yarn-mini.sh up

yarn-down: venv ## Stop the local MiniYARNCluster
	@scripts/yarn-mini.sh down

yarn-test: venv jars up yarn-up package ## The job on the local YARN: AM killed mid-stream, attempt 2 resumes exact, stop marker
	$(PY) -m pytest tests/yarn

# The tests, chaos and the bench drive the native stack's servers (they kill and restart them), so
# they pin it even where a Docker engine answers; stop a compose stack first (make down STACK=docker).
test test-integration test-faults test-mysql chaos bench yarn-test: export STACK := native

test: setup venv java jars lint typecheck compose-check up class-archive ## Lint, type check, compose check, unit, integration, faults (CI adds make yarn-test)
	$(PY) -m pytest tests --ignore=tests/yarn --ignore=tests/otel

otel-check: venv java jars up ## The real OpenTelemetry Collector (built from the Go module proxy) ships a log file to Kafka in otlp_proto and otlp_json; the job counts both exactly (not in CI: the build takes minutes)
	@scripts/otelcol.sh >/dev/null
	$(PY) -m pytest tests/otel

rules-check: ## Prometheus's own rule engine (promtool, built from the Go module proxy) on the alert rules: tests/prometheus/rules_test.yml (not in CI: the build takes minutes)
	@promtool=$$(scripts/promtool.sh) && $$promtool check rules conf/prometheus/alerts.yml && $$promtool test rules tests/prometheus/rules_test.yml

fresh-check: ## A newcomer's make run + make test in a clean Debian 12 root file system (debootstrap; root or sudo; ~1 h; not in CI)
	@scripts/fresh-check.sh

clean: down yarn-down ## Stop the stack; delete .local (data, jars, secrets), .venv and the compose volumes with them
	@scripts/stack.sh remove-volumes
	rm -rf .local $(VENV)
