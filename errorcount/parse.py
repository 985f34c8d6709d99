"""The log contracts (docs/contract.md), applied inside the streaming plan by the project's JVM
classifier (java/errorcount/ClassifyLine.java, a Spark Java UDF): rows stay in the JVM, one pass
over each value's bytes.

LOG_FORMAT picks the contract: app lines (TIMESTAMP LEVEL message), access logs (Common/Combined
Log Format, an error is a 5xx status) or JSON events (fields, or a wrapped app/access line).
Minutes are epoch minutes: UTC when the record has a zone (or is an epoch number), else the
wall-clock minute as written. Nothing depends on the JVM, driver or session time zone: the
classifier does integer arithmetic on the digits.
"""

from dataclasses import astuple, dataclass, fields
from datetime import datetime

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F

from errorcount import session
from errorcount.columns import once_per_app, select_stages

CLASSIFIER_CLASS = "errorcount.ClassifyLine"  # in .local/java/errorcount-classify.jar (make java)
CLASSIFIER_UDF = "errorcount_classify"
CODE_BITS = 4  # the classifier returns epoch minute * 16 + outcome code
VALID, ERROR = 0, 1

_EPOCH = datetime(1970, 1, 1)
MIN_MINUTE = int((datetime(1000, 1, 1) - _EPOCH).total_seconds() // 60)
MAX_MINUTE = int((datetime(9999, 12, 31, 23, 59) - _EPOCH).total_seconds() // 60)

RAW_PREFIX_BYTES = 1024  # how much of a rejected value the dead-letter table keeps

# Reasons a record is rejected, with the classifier's codes (java/errorcount/Outcome.java). Each
# contract checks its own in the order of the codes.
REJECT_NULL = "null_value"
REJECT_EMPTY = "empty_line"
REJECT_TIMESTAMP = "bad_timestamp"
REJECT_LEVEL = "bad_level"
REJECT_DATE = "impossible_date"
REJECT_RANGE = "minute_out_of_range"
REJECT_ACCESS = "bad_access_line"
REJECT_STATUS = "bad_status"
REJECT_JSON = "bad_json"
REJECT_MESSAGE = "bad_message"
REJECT_CODES = {2: REJECT_NULL, 3: REJECT_EMPTY, 4: REJECT_TIMESTAMP, 5: REJECT_LEVEL, 6: REJECT_DATE, 7: REJECT_RANGE,
                8: REJECT_ACCESS, 9: REJECT_STATUS, 10: REJECT_JSON, 11: REJECT_MESSAGE}


@dataclass(frozen=True)
class Contract:
    """What the classifier is built with: the log-format settings (errorcount/settings.py), in the
    order of ClassifyLine's constructor."""
    log_format: str = "app"
    error_levels: str = "ERROR"
    error_status_min: int = 500
    json_time_fields: str = "@timestamp,timestamp,time,ts"
    json_level_fields: str = "level,log.level,severity,levelname"
    json_status_field: str = ""
    json_epoch_unit: str = "auto"
    json_message_field: str = ""
    message_format: str = "app"

    @classmethod
    def of(cls, cfg) -> "Contract":
        return cls(**{f.name: getattr(cfg, f.name) for f in fields(cls)})


_registered: dict[str, Contract] = {}


def register_classifier(spark: SparkSession, contract: Contract = Contract()) -> None:
    """Registers an instance of the JVM classifier, built with the contract, as CLASSIFIER_UDF
    (again only when the contract changes). Its jar must be on the classpath (scripts/run.sh and
    the YARN package pass it with --jars). A bad contract fails here, with the classifier's reason."""
    app = spark.sparkContext.applicationId
    if _registered.get(app) != contract:
        jvm = session.jvm(spark)
        classifier = getattr(jvm, CLASSIFIER_CLASS.split(".")[0]).ClassifyLine(*astuple(contract))
        spark._jsparkSession.udf().register(CLASSIFIER_UDF, classifier, jvm.org.apache.spark.sql.types.DataTypes.LongType)
        _registered.clear()
        _registered[app] = contract


@once_per_app
def _classify_stages() -> list[list]:
    code = F.col("packed").bitwiseAND((1 << CODE_BITS) - 1)
    rejected = code > ERROR
    return [["partition", "offset", "value", F.call_function(CLASSIFIER_UDF, F.col("value")).alias("packed")],
            ["partition", "offset",
             F.when(~rejected, F.shiftright("packed", CODE_BITS)).alias("minute"),
             (code == ERROR).alias("is_error"),
             reject_reason_of(code).alias("reject_reason"),
             F.when(rejected, F.substring("value", 1, RAW_PREFIX_BYTES)).alias("raw_value")]]


def classify_lines_df(df: DataFrame) -> DataFrame:
    """In: Kafka rows (value, partition, offset).
    Out: partition, offset, minute (long epoch minute or null), is_error (boolean),
    reject_reason (string or null), raw_value (binary: a rejected value's first KiB, else null),
    and timestamp (the Kafka record's) when the input has it.
    minute is null exactly when reject_reason is not. The contract is the one registered
    (register_classifier: the job registers its configured one), else app as written."""
    if df.sparkSession.sparkContext.applicationId not in _registered:
        register_classifier(df.sparkSession)
    stages = _classify_stages()
    if "timestamp" in df.columns:  # the Kafka record's time, for the lag (errorcount/lag.py)
        stages = [[*columns, "timestamp"] for columns in stages]
    return select_stages(df, stages)


def reject_reason_of(code: Column) -> Column:
    """The reject reason of an outcome code; null for a valid line (VALID, ERROR)."""
    reason = F.lit(None).cast("string")
    for number, name in sorted(REJECT_CODES.items(), reverse=True):
        reason = F.when(code == number, F.lit(name)).otherwise(reason)
    return reason
