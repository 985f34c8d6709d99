"""Every setting of the job, declared once: name, type, default, bounds or choices, secret or not,
one-line description, and the longer note the documented config file carries.

Everything else derives from SETTINGS: the Config fields, validation, the flags, the environment
and config-file keys (errorcount/config/load.py), conf/errorcount.conf and docs/configuration.md
(`python -m errorcount.config conf|markdown`; a unit test fails when the committed files differ),
and the values shell scripts read (scripts/lib.sh's job_setting, all of them from one call of
errorcount/tools/localenv.py; by hand: `python -m errorcount.config get KEY`).
Adding a setting is one entry here (docs/configuration.md shows one), then `make config-docs`.
The module is that one table, one declaration per setting: it grows with the settings, not with
logic, so it stays one file past the ~250 lines the other modules keep to.
"""

import re
from dataclasses import dataclass

# How much longer than MYSQL_IDLE_TIMEOUT (its longest lock wait) the job waits for a statement's
# reply: its own work on top (errorcount/store/mysql.py connect_args; the setting's note says it)
MYSQL_REPLY_MARGIN_S = 30


@dataclass(frozen=True)
class Setting:
    name: str                      # file key and environment variable; the flag is --name-in-kebab-case
    kind: type                     # str, int or bool: the Config field's type
    default: str
    doc: str                       # one line: the flag's help and the reference table
    note: str = ""                 # more lines for the config file and the reference
    low: int = 0                   # int bounds, inclusive
    high: int = 2**62
    choices: tuple[str, ...] = ()  # the allowed values (compared in lower case, stored as written here)
    pattern: str = ""              # a str value must match it in full (with `shape` saying how it should look)
    shape: str = ""
    secret: bool = False           # environment or a file only: never a flag or the config file, never printed
    group: str = ""                # starts a section of the config file
    empty_is_value: bool = False   # an empty environment variable sets "" (e.g. off) instead of counting as unset
    classifier: bool = False       # the JVM classifier reads it, by this name (errorcount/pipeline/classify.py passes it)

    @property
    def field(self) -> str:
        return self.name.lower()

    @property
    def flag(self) -> str:
        return "--" + self.name.lower().replace("_", "-")


NAMES = r"[^,]*[^,\s][^,]*(,[^,]*[^,\s][^,]*)*"  # comma-separated, no entry empty or blank

SETTINGS: tuple[Setting, ...] = (
    Setting("KAFKA_BOOTSTRAP_SERVERS", str, "127.0.0.1:9092", "Kafka bootstrap servers, comma-separated",
            pattern=r"\S.*", shape="host:port[,host:port...]", group="Kafka"),
    Setting("KAFKA_TOPIC", str, "app-logs", "topic, or comma-separated topics, holding one log event per record",
            note="One job reads every topic listed, each counted into the same tables; offsets, topic IDs and "
                 "dead letters are kept per topic and partition (docs/operations.md, \"Pointing the job at your "
                 "topics\"). A listed topic that does not exist at the first start is a config error (exit 2).",
            pattern=r"([A-Za-z0-9._-]{1,249}( *, *[A-Za-z0-9._-]{1,249})*)?", shape="Kafka topic names, comma-separated"),
    Setting("KAFKA_TOPIC_PATTERN", str, "", "a Java regex: read every topic whose whole name it matches, instead of KAFKA_TOPIC",
            note="Replaces KAFKA_TOPIC's default; KAFKA_TOPIC set to anything else as well is a config error. "
                 "Topics created while the job runs are read from their first record, found within about one "
                 "trigger (Spark lists the topics each time it plans a batch). A pattern matching nothing "
                 "starts and waits. A matched topic deleted after the job counted all it saw of it is retired "
                 "(recorded); deleted with records the job had not read, it is data loss (exit 4, or "
                 "ON_DATA_LOSS=skip). docs/operations.md, \"Pointing the job at your topics\".",
            pattern=r".{0,500}", shape="at most 500 characters", empty_is_value=True),
    Setting("JOB_NAME", str, "error-counter", "names this job's offsets in MySQL; one running instance per name",
            note="A second instance writing the same offsets is detected and stopped (\"fenced\", exit code 3).",
            pattern=r".{1,200}", shape="1 to 200 characters"),
    Setting("MYSQL_HOST", str, "127.0.0.1", "MySQL host", group="MySQL"),
    Setting("MYSQL_PORT", int, "3306", "MySQL port", low=1, high=65535,
            note="The local stack (make up) serves MySQL on the port this resolves to."),
    Setting("MYSQL_DATABASE", str, "errorcount", "database holding error_log and kafka_offsets",
            note="The local stack creates this database."),
    Setting("MYSQL_USER", str, "errorcount", "MySQL user (SELECT, INSERT, UPDATE; DELETE for retention: sql/grants.sql)",
            note="The local stack creates this user with sql/grants.sql."),
    Setting("MYSQL_PASSWORD", str, "", "the MySQL password", secret=True,
            note="Environment, SECRETS_FILE or MYSQL_PASSWORD_FILE only; refused in this file and as a flag."),
    Setting("MYSQL_PASSWORD_FILE", str, "", "file holding the MySQL password (first line); empty: env MYSQL_PASSWORD"),
    Setting("SECRETS_FILE", str, "", "file of NAME=value lines for MYSQL_PASSWORD and KAFKA_OPT_* (0600)",
            note="Meant for drivers in a YARN container, where the submitter's environment does not follow: "
                 "submit-yarn.sh ships one. The environment wins over this file."),
    Setting("MYSQL_CONNECT_TIMEOUT", int, "10", "seconds to wait for a MySQL connection", low=1, high=3600),
    Setting("MYSQL_SSL_MODE", str, "preferred", "TLS to MySQL, in the MySQL client's terms (--ssl-mode)",
            note="disabled: never; preferred: when the server offers it, unverified; required: always, unverified; "
                 "verify_ca: always, the server's certificate checked against MYSQL_SSL_CA; verify_identity: "
                 "verify_ca and the certificate names MYSQL_HOST. Production: verify_identity.",
            choices=("disabled", "preferred", "required", "verify_ca", "verify_identity")),
    Setting("MYSQL_SSL_CA", str, "", "CA file the server's certificate is checked against (verify_ca, verify_identity)"),
    Setting("MYSQL_SSL_CERT", str, "", "client certificate file for MySQL TLS (with MYSQL_SSL_KEY)"),
    Setting("MYSQL_SSL_KEY", str, "", "client key file for MySQL TLS (with MYSQL_SSL_CERT)"),
    Setting("MYSQL_IDLE_TIMEOUT", int, "60", "seconds MySQL keeps a silent job connection, and any transaction it "
            "holds, before dropping it", low=5, high=3600,
            note="Bounds how long a frozen driver (a paused VM, a node cut off) can hold the job's row locks: its "
                 "transaction is rolled back, the next instance takes over, the frozen one is fenced when it wakes. "
                 "Set as the job session's wait_timeout and innodb_lock_wait_timeout; the job waits for a reply "
                 f"this plus {MYSQL_REPLY_MARGIN_S} s (a statement to a hung SQL server fails after that long, into the "
                 "outage retries), so the server's lock-wait answer comes first."),
    Setting("TRIGGER_INTERVAL", str, "1 second", "micro-batch interval (Spark processing-time trigger)",
            pattern=r"\d+ (milliseconds?|seconds?|minutes?)", shape="'5 seconds'", group="Batches",
            note="Exported as errorcount_trigger_interval_seconds: the stall alerts (ErrorcountNoCommit, "
                 "ErrorcountMinutesNotCompleting) wait three triggers, at least 10 minutes."),
    Setting("MAX_OFFSETS_PER_TRIGGER", int, "500000", "most records per micro-batch (0 = no limit)",
            note="Bounds batch size and memory while catching up on a backlog. Kafka records: with LOG_FORMAT=otlp, "
                 "requests of many log records each (divide by their typical count, e.g. 5000 for requests of 100). "
                 "Spark's reader costs ~5 ms of CPU per partition and batch: below 5 000 records per partition read, "
                 "a start logs a warning with the share of a catch-up that costs (docs/performance.md, 'Scale')."),
    Setting("SINGLE_TASK_MAX_RECORDS", int, "10000",
            "batches of at most this many records run as one Spark task, without a shuffle (0 = never)",
            note="Larger batches, and batches that read more than 8 partitions (each partition's read has a fixed cost "
                 "a single task would pay one after another), run in parallel. With LOG_FORMAT=otlp, log records: "
                 "a batch's Kafka records times the log records each held in the batch before (the first batch, "
                 "of requests of unknown size, runs in parallel)."),
    Setting("OVERLAP_COMMIT", bool, "true", "commit a batch in MySQL while Spark reads and counts the next one",
            note="Transactions still run one at a time, in batch order: a batch commits only after the previous one "
                 "did, and a failed commit stops the job before anything later is stored (docs/design.md). false: "
                 "each batch commits before Spark starts the next."),
    Setting("STARTING_OFFSETS", str, "earliest", "where a job's first start reads the partitions that exist then",
            note="Applies once, at the job's very first start (resolved before its first lease and stored with it, "
                 "job_leases.first_planned_at), to the partitions that exist then: a topic or partition first seen "
                 "later, created while the job runs or while it is stopped, is counted from its first record. "
                 "Partitions with stored offsets always resume from MySQL.", choices=("earliest", "latest")),
    Setting("KAFKA_TIMEOUT", int, "30", "seconds one Kafka metadata request may take", low=1, high=3600),
    Setting("LOG_FORMAT", str, "app", "what the topic's records are: app lines, access logs, JSON events or OTLP requests",
            note="The contracts: docs/contract.md. app: TIMESTAMP LEVEL message; access: Common/Combined Log Format, "
                 "an error is a status from ERROR_STATUS_MIN; json: one JSON object per record; otlp: one OpenTelemetry "
                 "export request per record (the Collector's Kafka exporter), each log record counted.",
            choices=("app", "access", "json", "otlp"), group="Log format", classifier=True),
    Setting("OTLP_ENCODING", str, "auto", "otlp: how a request is encoded (the Kafka exporter's otlp_proto or otlp_json)",
            note="auto: a value whose first byte is '{' is otlp_json, any other otlp_proto (a request's protobuf "
                 "encoding never starts with that byte).", choices=("auto", "proto", "json"), classifier=True),
    Setting("OTLP_ERROR_SEVERITY", int, "17", "otlp: the lowest severity number counted as an error (17 = ERROR)",
            note="A log record with severity number 0 (unspecified) is an error when its severity text is one of "
                 "ERROR_LEVELS.", low=1, high=24, classifier=True),
    Setting("ERROR_LEVELS", str, "ERROR", "comma-separated levels that count as errors (ASCII case-insensitive)",
            note="For app lines (ASCII letters only) and JSON levels (any text, e.g. pino's 50).",
            pattern=NAMES, shape="comma-separated names, none empty", classifier=True),
    Setting("ERROR_STATUS_MIN", int, "500", "the lowest HTTP status counted as an error (access, JSON_STATUS_FIELD)",
            low=100, high=599, classifier=True),
    Setting("JSON_TIME_FIELDS", str, "@timestamp,timestamp,time,ts",
            "json: candidate timestamp fields; the first present and not null wins",
            note="A name is a literal top-level key first, else a dotted path through nested objects.",
            pattern=NAMES, shape="comma-separated field names, none empty", classifier=True),
    Setting("JSON_LEVEL_FIELDS", str, "level,log.level,severity,levelname",
            "json: candidate level fields; the first present and not null wins",
            pattern=NAMES, shape="comma-separated field names, none empty", classifier=True),
    Setting("JSON_STATUS_FIELD", str, "", "json: when set, an event is an error iff this field's status is "
            "ERROR_STATUS_MIN to 599", note="For JSON access logs (nginx escape=json, Envoy, Traefik); "
            "the level fields are then not read.", classifier=True),
    Setting("JSON_EPOCH_UNIT", str, "auto", "json: how a numeric timestamp is read",
            note="auto takes |n| >= 100000000000 as milliseconds, else seconds.", choices=("auto", "s", "ms"), classifier=True),
    Setting("JSON_MESSAGE_FIELD", str, "", "json: when set, this string field holds the original line, "
            "classified under MESSAGE_FORMAT alone",
            note="For shippers that wrap raw lines (Filebeat, Fluent Bit, Vector: message; Docker: log).", classifier=True),
    Setting("MESSAGE_FORMAT", str, "app", "json with JSON_MESSAGE_FIELD: the contract of the wrapped line",
            choices=("app", "access"), classifier=True),
    Setting("COUNTS_TABLE", str, "error_log", "the table of per-minute counts this job writes (error_log's shape)",
            note="Give each job its own table (make schema creates it when configured), so an access-log job and "
                 "an application-log job do not add into one.",
            pattern=r"[A-Za-z_][A-Za-z0-9_]{0,63}", shape="an identifier: letters, digits, _ (1 to 64)"),
    Setting("SHARE_COUNTS_TABLE", bool, "false", "let this job add into a COUNTS_TABLE that other jobs write too",
            note="A counts table belongs to the first job that writes it; another job is refused (exit 2) unless it "
                 "and every job already writing the table set this (their counts then add up in one table)."),
    Setting("COUNT_LINES", bool, "true", "also count every valid line per minute (and per series): an error ratio's denominator",
            note="line_count beside log_count in COUNTS_TABLE and error_series_counts, in the same transaction; a "
                 "rejected record is not a line. false (the default before batches were counted in one pass): line_count "
                 "stays 0 and only ERROR lines are classified into series (docs/operations.md, 'Error ratios'). "
                 "Turned on in a running deployment (an upgrade that leaves it unset included), the minutes around "
                 "the restart hold only part of their lines: recount them (docs/operations.md, 'Upgrading: "
                 "COUNT_LINES on by default').", classifier=True),
    Setting("LATENESS", int, "300", "seconds an event's own time may trail its Kafka append time; later minutes are incomplete",
            note="A minute is complete once counted_through (every record Kafka made readable before it is counted) "
                 "is past the minute's end plus LATENESS: the complete column of the minutes views and "
                 "counted_through.complete_before (docs/operations.md, 'Complete minutes'). It must also cover the "
                 "clock skew between the producers and the driver.", low=0, high=7 * 86400),
    Setting("GROUP_BY", str, "", "dimensions ERROR lines are also counted by, comma-separated (empty: the total only)",
            note="level (app; json by level), status, method, path (access; status also json with JSON_STATUS_FIELD), "
                 "field:<dotted.path> (json), each of a wrapped line's too; otlp: resource:<key>, scope:name, "
                 "attr:<key>, severity, level. topic for every format. Written to error_series_counts, one series "
                 "per combination of values, in the batch's transaction: docs/operations.md, 'Counting by dimension'.",
            pattern=r".{0,500}", shape="at most 500 characters", group="Dimensions", empty_is_value=True, classifier=True),
    Setting("PATH_DEPTH", int, "1", "the path dimension keeps this many leading segments (query string dropped)",
            low=1, high=32, classifier=True),
    Setting("MAX_SERIES", int, "1000", "most series one job registers; further series count into its overflow series",
            note="Admitted inside the batch's transaction while the job has fewer; overflow is counted in the ledger "
                 "(overflow_lines) and the metrics.", low=1, high=1_000_000),
    Setting("SERIES_RETENTION_DAYS", int, "90", "days per-dimension counts are kept, by their minute (0 = keep all)",
            note="The per-minute totals (COUNTS_TABLE) are never pruned.", high=36_500),
    Setting("RETRY_SECONDS", int, "300", "how long MySQL/Kafka may be away before the job gives up (exit 5)",
            note="Meanwhile it retries inside the running driver with backoff (0.5 s doubling to 10 s).",
            high=7 * 24 * 3600, group="Failures and housekeeping"),
    Setting("ON_DATA_LOSS", str, "fail", "records the job has not counted that Kafka no longer holds, found at a "
                                         "start: fail (exit 4) or skip (recorded)",
            note="skip goes on where nothing is counted twice (the earliest offset; a truncated partition's end; a "
                 "new topic's first record) and records each range in skipped_offsets (kind: retention, "
                 "new_partition, truncated, recreated, given_up), in the transaction that stores where the job "
                 "starts. Meant for one start: docs/operations.md, \"After a skip\".", choices=("fail", "skip")),
    Setting("DEAD_LETTER_LIMIT", int, "1000", "most rejected records per batch kept in rejected_lines (0 = none)",
            note="Beyond this they are only counted.", high=100_000),
    Setting("RETENTION_DAYS", int, "30", "days dead letters, per-batch ledger rows and changed_minutes rows are "
                                         "kept (0 = keep all)",
            note="Older ledger rows are merged into one row per job, topic, epoch and UTC day, keeping every sum; "
                 "error_log and the offsets are never pruned. Needs DELETE on those three tables (sql/grants.sql).",
            high=36_500),
    Setting("STOP_MARKER", str, "", "path (any Hadoop file system) whose existence stops the job at a batch boundary",
            note="A running job stops after its in-flight batch commits (exit 0); a starting one exits 0 at once. "
                 "submit-yarn.sh removes a stale marker before submitting."),
    Setting("RECOUNT_SKEW", int, "86400", "make recount: seconds a line's own minute may lie after its Kafka timestamp",
            note="A recount of FROM..TO reads every record from the first whose Kafka timestamp is at or after FROM "
                 "minus this (offsetsForTimes), so a line stamped up to this much later than Kafka's time is still "
                 "found; it covers producers' clocks and wall-clock lines without a zone (up to 14 h ahead of UTC). "
                 "docs/operations.md, \"Recounting a time range\".", high=30 * 86400, group="Recounting"),
    Setting("RECOUNT_CHUNK_MINUTES", int, "1440", "make recount: minutes swapped in per MySQL transaction",
            note="Each chunk is exact on its own and holds the job's lease row while it is written: the live job's "
                 "next commit waits for it.", low=1, high=527_040),
    Setting("KAFKA_LAG_GROUP", str, "errorcount-<job>", "Kafka consumer group the committed offsets are mirrored to "
            "(empty: off)", note="For lag tools (kafka-consumer-groups, Burrow, kminion, Kafka UIs): written after "
            "MySQL commits (commits closer than 5 s coalesce into one write), at least hourly while idle, best "
            "effort, never read back; <job> stands for JOB_NAME.", group="Watching",
            empty_is_value=True),
    Setting("METRICS_PORT", int, "0", "port of the driver's Prometheus metrics endpoint (0 = off; 9108 suggested)",
            high=65535),
    Setting("METRICS_HOST", str, "127.0.0.1", "address the metrics endpoint listens on",
            note="0.0.0.0 lets a containerised or remote Prometheus scrape it; allow that explicitly."),
    Setting("SLO_OBJECTIVE", str, "0.999", "the share of lines that may not be errors: the burn-rate alerts' objective",
            note="Exported as errorcount_slo_objective; conf/prometheus/alerts.yml's errorcount-slo rules alert when the "
                 "error ratio burns the budget (1 - SLO_OBJECTIVE) 14.4 times too fast over 1 h and 5 m, or 6 times over "
                 "6 h and 30 m (docs/operations.md, 'Alerts'). Needs COUNT_LINES.",
            pattern=r"0\.[0-9]{1,6}", shape="a fraction between 0 and 1, such as 0.999"),
    Setting("LOG_LEVEL", str, "INFO", "log level of the driver's own messages (Spark's: conf/log4j2.properties)",
            choices=("DEBUG", "INFO", "WARNING", "ERROR")),
)
BY_NAME = {setting.name: setting for setting in SETTINGS}
CLASSIFIER_SETTINGS = tuple(setting for setting in SETTINGS if setting.classifier)
KAFKA_ENV_PREFIX = "KAFKA_OPT_"  # KAFKA_OPT_SECURITY_PROTOCOL=SSL -> kafka.security.protocol
# Kafka client options whose value is a secret: passwords, JAAS lines, tokens, and inline PEM keys
# (ssl.keystore.key); environment or SECRETS_FILE only, redacted everywhere else.
SECRET_OPTION = re.compile(r"password|jaas|secret|token|credential|(^|\.)key$", re.IGNORECASE)
# Settings that were replaced: a config file naming one is told what to use instead.
REPLACED = {"MYSQL_SSL_VERIFY_IDENTITY": "MYSQL_SSL_MODE=verify_identity (or verify_ca to skip the host name check)",
            "COUNT_PASS": "nothing: every batch is classified and counted in one JVM pass (COUNT_PASS=one_pass was "
                          "the default; the aggregate path is gone), so delete the line"}


def reads_requests(log_format: str) -> bool:
    """LOG_FORMAT=otlp: a Kafka record is an export request of any number of log records, each with
    its own outcome (every other format: one line per record)."""
    return log_format == "otlp"


def _comment(text: str) -> list[str]:
    words, lines, line = text.split(), [], "#"
    for word in words:
        if len(line) + 1 + len(word) > 100:
            lines.append(line)
            line = "#"
        line += " " + word
    return [*lines, line]


def render_conf() -> str:
    """conf/errorcount.conf: every non-secret setting at its default, documented."""
    out = ["# Configuration of the error-log counter (KEY = value; '#' starts a comment). Generated from",
           "# errorcount/config/settings.py by `make config-docs`: edit that file, not this one.",
           "# Precedence: built-in default < this file < environment variable of the same name < flag",
           "# (--kafka-topic, ...). `python -m errorcount.main --help` lists the flags.",
           "# Secrets are never read from this file or from flags: MYSQL_PASSWORD comes from the environment,",
           "# MYSQL_PASSWORD_FILE or SECRETS_FILE; Kafka secrets from KAFKA_OPT_* environment variables."]
    for setting in SETTINGS:
        if setting.group:
            out += ["", f"# --- {setting.group} ---"]
        text = setting.doc[0].upper() + setting.doc[1:] + "."
        if setting.choices:
            text += f" One of: {', '.join(setting.choices)}."
        out += _comment(f"{text} {setting.note}".strip())
        out.append(f"# {setting.name} = (secret: not here)" if setting.secret else f"{setting.name} = {setting.default}".rstrip())
    out += ["", "# Kafka client options pass through with their kafka. prefix, e.g.",
            "#   kafka.security.protocol = SASL_SSL", "#   kafka.sasl.mechanism = SCRAM-SHA-512",
            "# Secret-looking options (password, jaas, secret, token) are refused here; set them in the",
            "# environment instead: KAFKA_OPT_SASL_JAAS_CONFIG='org.apache...ScramLoginModule required ...;'"]
    return "\n".join(out) + "\n"


def render_markdown() -> str:
    """The table of docs/configuration.md (between its generated-table markers)."""
    rows = ["| key (env, file) | flag | type | default | allowed | description |", "|---|---|---|---|---|---|"]
    for s in SETTINGS:
        bounds = f"{s.low} to {s.high}" if s.high < 2**62 else f"{s.low} or more"
        allowed = (", ".join(s.choices) if s.choices else bounds if s.kind is int
                   else "true, false" if s.kind is bool else s.shape)
        flag = "(env or file only)" if s.secret else f"`{s.flag}`"
        default = f"`{s.default}`" if s.default else "(empty)"
        text = f"{s.doc}. {s.note}".strip()
        rows.append(f"| `{s.name}` | {flag} | {s.kind.__name__} | {default} | {allowed} | {text} |")
    return "\n".join(rows) + "\n"


def render_config_type() -> str:
    """errorcount/config/config_type.py: the Config class with one typed field per setting, so editors and
    the type checker (make check) see every cfg.<field>."""
    out = ['"""The validated settings of one job run: one field per setting of errorcount/config/settings.py.',
           "",
           "Generated by `make config-docs` (python -m errorcount.config type): edit settings.py, not this file;",
           'a unit test fails when the two differ. errorcount/config/load.py builds and validates it."""',
           "", "from dataclasses import dataclass, field", "", "",
           "@dataclass(frozen=True)", "class Config:",
           '    """Secrets never appear in repr()."""', ""]
    for s in SETTINGS:
        hidden = " = field(repr=False)" if s.secret else ""
        out.append(f"    {s.field}: {s.kind.__name__}{hidden}  # {s.name}")
    out.append("    kafka_options: dict[str, str] = field(default_factory=dict, repr=False)  # kafka.* client options")
    return "\n".join(out) + "\n"


TABLE_BEGIN, TABLE_END = "<!-- settings:begin (generated: make config-docs) -->", "<!-- settings:end -->"


def with_table(page: str) -> str:
    """docs/configuration.md with the generated table put between its markers."""
    head, _, rest = page.partition(TABLE_BEGIN)
    _, _, tail = rest.partition(TABLE_END)
    return f"{head}{TABLE_BEGIN}\n{render_markdown()}{TABLE_END}{tail}"
