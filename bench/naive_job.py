"""(d) The naive PySpark job: the same driver, source and MySQL transaction as errorcount/main.py, but
the parse is a Python UDF (tests/oracles/pyparse.py), as a user might first write it, and the counting
Spark's aggregate over its rows (batch_summary_df) instead of the one JVM pass. Every row then
travels JVM -> Python worker -> JVM. Run by the bench via scripts/run.sh (--driver)."""

import sys

# The job's drivers import pyspark so too (errorcount/driver_path.py): starts compared alike.
import errorcount.driver_path  # noqa: F401  # isort: skip

from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql import types as T

from errorcount import main as app_main
from errorcount.batch import count
from errorcount.pipeline import one_pass
from errorcount.pipeline.classify import RAW_PREFIX_BYTES, Contract
from tests.oracles import pyparse
from tests.oracles.catalyst import batch_summary_df

PARSED = T.StructType([T.StructField("minute", T.LongType()), T.StructField("is_error", T.BooleanType()),
                       T.StructField("reject_reason", T.StringType())])
classify_udf = F.udf(pyparse.classify, PARSED)


def classify_lines_udf_df(df: DataFrame, contract: Contract) -> DataFrame:
    """In: Kafka rows. Out: topic, partition, offset, minute, is_error, reject_reason, raw_value, series
    (as classify_lines_df; series null: no GROUP_BY). The app contract as written only (the bench's corpus)."""
    if contract != Contract.with_settings(COUNT_LINES=contract["COUNT_LINES"]):
        raise ValueError("the naive job knows the app contract as written only (COUNT_LINES either way)")
    timed = ["timestamp"] if "timestamp" in df.columns else []  # the lag's newest_ms, as classify_lines_df keeps it
    parsed = df.select("topic", "partition", "offset", "value", *timed, classify_udf("value").alias("parsed"))
    raw_value = F.when(F.col("parsed.reject_reason").isNotNull(), F.substring("value", 1, RAW_PREFIX_BYTES))
    return parsed.select("topic", "partition", "offset", "parsed.minute", "parsed.is_error", "parsed.reject_reason",
                         raw_value.alias("raw_value"), F.lit(None).cast("string").alias("series"), *timed)


def naive_summary_df(raw: DataFrame, contract: Contract, slots: int = 0, bounds=None) -> DataFrame:
    """In place of one_pass_arrow_df: the UDF's rows counted by Spark's aggregate (a row per group,
    collected by one_pass.collect_summary in place of collect_arrow_summary)."""
    return batch_summary_df(classify_lines_udf_df(raw, contract), slots, bounds, contract.every_line)


if __name__ == "__main__":
    # The one step this variant changes, swapped in this process only: the job has no bench hook.
    count.one_pass_arrow_df, count.classify_lines_df = naive_summary_df, classify_lines_udf_df
    count.collect_arrow_summary = one_pass.collect_summary
    sys.exit(app_main.main())
