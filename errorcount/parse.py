"""The log-line contract (docs/contract.md), applied inside the streaming plan by the project's JVM
classifier (java/errorcount/ClassifyLine.java, a Spark Java UDF): rows stay in the JVM, and the
one pass over each value's bytes replaces the regex pipeline the job used before.

A record's value is read as UTF-8; only its first line counts, without a trailing CR and
surrounding spaces/tabs. That line is
    TIMESTAMP  <spaces/tabs>  LEVEL[:]  [<space/tab> message]
with TIMESTAMP = YYYY-MM-DD{' '|T}HH:MM:SS[{.|,}fraction][Z|+HH:MM|+HHMM]. Minutes are epoch
minutes: UTC when the line has a zone, else the wall-clock minute as written. Nothing depends on
the JVM, driver or session time zone: the classifier does integer arithmetic on the digits.
"""

from datetime import datetime

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F

from errorcount.columns import once_per_app, select_stages

CLASSIFIER_CLASS = "errorcount.ClassifyLine"  # in .local/java/errorcount-classify.jar (make java)
CLASSIFIER_UDF = "errorcount_classify"
CODE_BITS = 4  # the classifier returns epoch minute * 16 + outcome code
VALID, ERROR = 0, 1

_EPOCH = datetime(1970, 1, 1)
MIN_MINUTE = int((datetime(1000, 1, 1) - _EPOCH).total_seconds() // 60)
MAX_MINUTE = int((datetime(9999, 12, 31, 23, 59) - _EPOCH).total_seconds() // 60)

RAW_PREFIX_BYTES = 1024  # how much of a rejected value the dead-letter table keeps

# Reasons a record is rejected, in the order they are checked, with the classifier's codes.
REJECT_NULL = "null_value"
REJECT_EMPTY = "empty_line"
REJECT_TIMESTAMP = "bad_timestamp"
REJECT_LEVEL = "bad_level"
REJECT_DATE = "impossible_date"
REJECT_RANGE = "minute_out_of_range"
REJECT_CODES = {2: REJECT_NULL, 3: REJECT_EMPTY, 4: REJECT_TIMESTAMP, 5: REJECT_LEVEL, 6: REJECT_DATE, 7: REJECT_RANGE}

_registered: set[tuple[str, str]] = set()


def register_classifier(spark: SparkSession, error_levels: str = "ERROR") -> None:
    """Registers an instance of the JVM classifier, built with its configuration, as
    CLASSIFIER_UDF, once per Spark application. Its jar must be on the classpath (scripts/run.sh
    and the YARN package pass it with --jars)."""
    key = (spark.sparkContext.applicationId, error_levels)
    if key not in _registered:
        jvm = spark.sparkContext._jvm
        classifier = getattr(jvm, CLASSIFIER_CLASS.split(".")[0]).ClassifyLine(error_levels)
        spark._jsparkSession.udf().register(CLASSIFIER_UDF, classifier, jvm.org.apache.spark.sql.types.DataTypes.LongType)
        _registered.clear()
        _registered.add(key)


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
    reject_reason (string or null), raw_value (binary: a rejected value's first KiB, else null).
    minute is null exactly when reject_reason is not."""
    register_classifier(df.sparkSession)
    return select_stages(df, _classify_stages())


def reject_reason_of(code: Column) -> Column:
    """The reject reason of an outcome code; null for a valid line (VALID, ERROR)."""
    reason = F.lit(None).cast("string")
    for number, name in sorted(REJECT_CODES.items(), reverse=True):
        reason = F.when(code == number, F.lit(name)).otherwise(reason)
    return reason
