"""(d) The naive PySpark job: the same driver, source, aggregation and MySQL transaction as
errorcount/main.py, but the parse is a Python UDF (tests/oracles/pyparse.py), as a user might first write it.
Every row then travels JVM -> Python worker -> JVM. Run by the bench via scripts/run.sh (--driver)."""

import sys

# The job's drivers import pyspark so too (errorcount/driver_path.py): starts compared alike.
import errorcount.driver_path  # noqa: F401  # isort: skip

from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql import types as T

from errorcount import main as app_main
from errorcount.pipeline import classify
from errorcount.pipeline.classify import RAW_PREFIX_BYTES, Contract
from tests.oracles import pyparse

PARSED = T.StructType([T.StructField("minute", T.LongType()), T.StructField("is_error", T.BooleanType()),
                       T.StructField("reject_reason", T.StringType())])
classify_udf = F.udf(pyparse.classify, PARSED)


def classify_lines_udf_df(df: DataFrame, contract: Contract) -> DataFrame:
    """In: Kafka rows. Out: topic, partition, offset, minute, is_error, reject_reason, raw_value, series
    (as classify_lines_df; series null: no GROUP_BY). The app contract as written only (the bench's corpus)."""
    if contract != Contract.with_settings():
        raise ValueError("the naive job knows the app contract as written only")
    parsed = df.select("topic", "partition", "offset", "value", classify_udf("value").alias("parsed"))
    raw_value = F.when(F.col("parsed.reject_reason").isNotNull(), F.substring("value", 1, RAW_PREFIX_BYTES))
    return parsed.select("topic", "partition", "offset", "parsed.minute", "parsed.is_error", "parsed.reject_reason",
                         raw_value.alias("raw_value"), F.lit(None).cast("string").alias("series"))


if __name__ == "__main__":
    # The one step this variant changes, swapped in this process only: the job has no bench hook.
    classify.classify_lines_df = classify_lines_udf_df
    sys.exit(app_main.main())
