"""Column expressions are built once per Spark application, not once per micro-batch."""

from pyspark.sql import functions as F

from errorcount.pipeline.columns import once_per_app


def test_once_per_app_builds_once_and_reuses(spark):
    calls = []

    @once_per_app
    def columns():
        calls.append(1)
        return [F.col("a") + 1]

    first, second = columns(), columns()
    assert first is second
    assert len(calls) == 1
    df = spark.createDataFrame([(1,), (None,)], "a int")
    assert [row[0] for row in df.select(*first).collect()] == [2, None]
