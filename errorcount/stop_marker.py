"""The stop marker: a path whose existence asks the job to stop at a batch boundary.

On YARN the driver runs in a container on some node, out of reach of a terminal's Ctrl-C, and
`yarn application -kill` gives it only YARN's SIGTERM-to-SIGKILL delay. A marker on a shared file
system (HDFS, S3, or a local path in local mode) is a request the driver can honour at leisure:
it finishes the in-flight batch, commits it and exits 0, so YARN records the application as
SUCCEEDED and does not start another attempt. The path goes through Hadoop's FileSystem API in the
driver's JVM, so every scheme the cluster knows works, with the cluster's credentials.
"""

import logging
import time

from pyspark.sql import SparkSession

from errorcount import session
from errorcount.retry import first_line

log = logging.getLogger(__name__)
POLL_SECONDS = 2.0  # one metadata call per poll: cheap for a NameNode, prompt enough for an operator


class StopMarker:
    """present() is True once the marker exists; it asks the file system at most every POLL_SECONDS."""

    def __init__(self, spark: SparkSession, path: str, clock=time.monotonic):
        self.spark, self.path, self.clock = spark, path, clock
        self.checked_at: float | None = None
        self.seen = False
        self.failing = False

    def present(self) -> bool:
        if not self.path or self.seen:
            return self.seen
        now = self.clock()
        if self.checked_at is not None and now - self.checked_at < POLL_SECONDS:
            return False
        self.checked_at = now
        self.seen = self.exists()
        return self.seen

    def exists(self) -> bool:
        try:
            jvm = session.jvm(self.spark)
            path = jvm.org.apache.hadoop.fs.Path(self.path)
            found = bool(path.getFileSystem(self.spark._jsc.hadoopConfiguration()).exists(path))
        except Exception as error:  # noqa: BLE001 - a flaky file system must not stop the counting
            if not self.failing:
                log.warning("cannot check the stop marker %s (%s); the job keeps running and checks again. "
                            "Fix the path or the file system's access, or stop the job another way.",
                            self.path, first_line(error))
            self.failing = True
            return False
        if self.failing:
            log.info("the stop marker %s can be checked again", self.path)
            self.failing = False
        return found
