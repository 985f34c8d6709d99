"""The log contracts (docs/contract.md), applied inside the streaming plan by the project's JVM
classifier (java/errorcount/ClassifyLine.java, a Spark Java UDF): rows stay in the JVM, one pass
over each value's bytes.

LOG_FORMAT picks the contract: app lines (TIMESTAMP LEVEL message), access logs (Common/Combined
Log Format, an error is a 5xx status) or JSON events (fields, or a wrapped app/access line).
Minutes are epoch minutes: UTC when the record has a zone (or is an epoch number), else the
wall-clock minute as written. Nothing depends on the JVM, driver or session time zone: the
classifier does integer arithmetic on the digits.

The classifier takes its settings by name (Contract); its outcome codes and their reject reasons
are the JVM's (Outcome.java), asked for once per application (outcomes).
"""

import hashlib
from dataclasses import dataclass
from typing import Any

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F

from errorcount import session
from errorcount.config import dimensions
from errorcount.config.load import Config, load_config
from errorcount.config.rules import as_text
from errorcount.config.settings import CLASSIFIER_SETTINGS, reads_requests
from errorcount.pipeline.columns import PerApp, select_stages

CLASSIFIER_CLASS = "ClassifyLine"  # package errorcount, in .local/java/errorcount-classify.jar (make java)
OTLP_CLASS = "ClassifyOtlp"        # LOG_FORMAT=otlp: an outcome per log record of a request (an array)
CLASSIFIER_UDF = "errorcount_classify"  # + the contract's digest: one SQL function per contract
RAW_PREFIX_BYTES = 1024  # how much of a rejected value the dead-letter table keeps
WHOLE_RECORD_REASONS = ("null_value", "bad_otlp")  # otlp: rejects of a whole record, not of a log record in it


@dataclass(frozen=True)
class Contract:
    """The log-format settings the classifier is built with, by name: every setting marked
    `classifier` in errorcount/config/settings.py, as validated text. Defaults and validation are the
    settings' own: build one from a Config (of) or from settings by name (with_settings)."""

    settings: tuple[tuple[str, str], ...]

    @classmethod
    def of(cls, cfg: Config) -> "Contract":
        return cls(as_text(cfg, CLASSIFIER_SETTINGS))

    @classmethod
    def with_settings(cls, **settings: str | int) -> "Contract":
        """These settings (LOG_FORMAT="json", ...) over the defaults, validated as the job validates
        its configuration (ConfigError)."""
        return cls.of(load_config([], {name: str(value) for name, value in settings.items()}))

    def __getitem__(self, name: str) -> str:
        return dict(self.settings)[name]

    def to_java(self, jvm: Any) -> Any:
        """The settings as the java.util.Map the classifier's constructors take."""
        settings = jvm.java.util.HashMap()
        for name, value in self.settings:
            settings.put(name, dimensions.for_classifier(value) if name == "GROUP_BY" else value)
        return settings

    @property
    def by_topic(self) -> bool:
        """GROUP_BY names `topic`: the series gets the record's topic after the classifier's values."""
        return dimensions.TOPIC in dimensions.names(self["GROUP_BY"])

    @property
    def every_line(self) -> bool:
        """COUNT_LINES: every line is counted, with its series, not only ERROR lines."""
        return self["COUNT_LINES"] == "true"

    @property
    def otlp(self) -> bool:
        """LOG_FORMAT=otlp: a record is a request of log records, each with its own outcome."""
        return reads_requests(self["LOG_FORMAT"])

    @property
    def java_class(self) -> str:
        return OTLP_CLASS if self.otlp else CLASSIFIER_CLASS

    @property
    def function(self) -> str:
        """The SQL function of this contract's classifier. One name per contract: a plan built for
        one contract can never run another's classifier, whatever else was registered."""
        return f"{CLASSIFIER_UDF}_{hashlib.sha256(repr(self.settings).encode()).hexdigest()[:16]}"




@dataclass(frozen=True)
class Outcomes:
    """How the classifier packs its answer (epoch minute << code_bits | code) and what each code
    means: valid and error are counted, every code in reasons is a reject with that reason."""

    code_bits: int
    valid: int
    error: int
    reasons: dict[int, str]


_per_app = PerApp()  # the outcome codes, the functions registered and the Columns built


def outcomes(spark: SparkSession) -> Outcomes:
    """The classifier's outcome codes, asked of the JVM (Outcome.java is their one list)."""
    def ask() -> Outcomes:
        classifier = getattr(session.jvm(spark).errorcount, CLASSIFIER_CLASS)
        valid, error = classifier.countedCodes()
        reasons = {code: str(reason) for code, reason in enumerate(classifier.rejectReasons()) if reason is not None}
        return Outcomes(int(classifier.codeBits()), int(valid), int(error), reasons)
    return _per_app.get("outcomes", ask)


def register_classifier(spark: SparkSession, contract: Contract) -> str:
    """Registers the JVM classifier built with `contract` as the SQL function contract.function
    (once per application) and returns that name. Its jar must be on the classpath (scripts/run.sh
    and the YARN package pass it with --jars)."""
    def register() -> str:
        jvm = session.jvm(spark)
        java_class = getattr(jvm.errorcount, contract.java_class)
        returns = jvm.org.apache.spark.sql.types.DataType.fromDDL(java_class.returnType())
        spark._jsparkSession.udf().register(contract.function, java_class(contract.to_java(jvm)), returns)
        return contract.function
    return _per_app.get(("function", contract.function), register)


def classify_lines_df(df: DataFrame, contract: Contract) -> DataFrame:
    """In: Kafka rows (value, topic, partition, offset[, timestamp]).
    Out: topic, partition, offset, minute (long epoch minute or null), is_error (boolean),
    reject_reason (string or null), raw_value (binary: a rejected value's first KiB, else null),
    series (a line's GROUP_BY values joined by dimensions.SEPARATOR: every line's with COUNT_LINES,
    else an ERROR line's; null for rejects and without GROUP_BY), and timestamp (the Kafka record's) when the input has it.
    minute is null exactly when reject_reason is not. Classified under `contract` only.

    LOG_FORMAT=otlp: a row per log record (a request that cannot be decoded: one reject row; one
    without log records: one row that is neither line nor reject, minute and reject_reason null),
    with two more columns: first (the first row of its Kafka record: the records are counted by
    it) and log_record (the row is a log record, counted or rejected, not a whole request)."""
    spark = df.sparkSession
    function = register_classifier(spark, contract)
    timed = "timestamp" in df.columns  # the Kafka record's time, for the lag (errorcount/observe/lag.py)

    def build() -> list[list]:
        # Built once per application and contract: a Column is an unbound expression tree, and
        # building one costs a py4j round trip per node (errorcount/pipeline/columns.py).
        stages = classify_stages(function, outcomes(spark), contract.by_topic, contract.every_line, contract.otlp)
        return [[*columns, "timestamp"] for columns in stages] if timed else stages
    return select_stages(df, _per_app.get(("stages", function, timed), build))


def classify_stages(function: str, codes: Outcomes, by_topic: bool = False, every_line: bool = False,
                    otlp: bool = False) -> list[list]:
    """The classifier's struct (ClassifyLine.RETURN_TYPE) computed once, then read field by field.
    `by_topic`: a line's series ends with its topic (GROUP_BY names `topic`): every line's with
    `every_line` (COUNT_LINES), else an ERROR line's, as the classifier's own series. `otlp`: the
    classifier returns an array of those structs (ClassifyOtlp), exploded, an empty one kept as a
    row of nulls so that its record is still counted."""
    code = F.col("packed").bitwiseAND((1 << codes.code_bits) - 1)
    rejected = (code != codes.valid) & (code != codes.error)
    series = F.col("series")
    if by_topic:  # concat_ws skips the classifier's null series when topic is the only dimension
        series = F.when(~rejected if every_line else code == codes.error, F.concat_ws(dimensions.SEPARATOR, "series",
                                                          F.substring("topic", 1, dimensions.VALUE_BYTES)))
    counts: list = []  # otlp: first, log_record
    stages = [["topic", "partition", "offset", "value", F.call_function(function, F.col("value")).alias("classified")]]
    if otlp:
        stages.append(["topic", "partition", "offset", "value", F.posexplode_outer("classified").alias("at", "classified")])
        whole = [number for number, reason in codes.reasons.items() if reason in WHOLE_RECORD_REASONS]
        counts = [F.coalesce(F.col("at") == 0, F.lit(True)).alias("first"),
                  (F.col("packed").isNotNull() & ~code.isin(*whole)).alias("log_record")]
    stages.append(["topic", "partition", "offset", "value", *(["at"] if otlp else []),
                   F.col("classified").getField("packed").alias("packed"),
                   F.col("classified").getField("series").alias("series")])
    return [*stages,
            ["topic", "partition", "offset",
             F.when(~rejected, F.shiftright("packed", codes.code_bits)).alias("minute"),
             (code == codes.error).alias("is_error"),
             reject_reason_of(code, codes.reasons).alias("reject_reason"),
             F.when(rejected, F.substring("value", 1, RAW_PREFIX_BYTES)).alias("raw_value"),
             series.alias("series"), *counts]]


def reject_reason_of(code: Column, reasons: dict[int, str]) -> Column:
    """The reject reason of an outcome code; null for a counted line (valid or error)."""
    reason = F.lit(None).cast("string")
    for number, name in sorted(reasons.items(), reverse=True):
        reason = F.when(code == number, F.lit(name)).otherwise(reason)
    return reason


def rejected_rows_df(classified: DataFrame) -> DataFrame:
    """In: classify_lines_df output. Out: topic, partition, offset, reject_reason, raw_value of every
    rejected row: the dead letters of a batch whose rejects fit under DEAD_LETTER_LIMIT but whose
    slot picks (one_pass_summary_df) collided, collected in a second, bounded job."""
    return (classified.where(F.col("reject_reason").isNotNull())
            .select("topic", "partition", "offset", "reject_reason", "raw_value"))
