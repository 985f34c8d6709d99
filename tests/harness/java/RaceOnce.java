package errorcount.tests;

import java.io.File;
import java.util.ConcurrentModificationException;

import org.apache.spark.scheduler.SparkListener;

/**
 * A SparkListener (spark.extraListeners) that fails the SparkContext's start once, the way Spark's
 * own UI race does: with a ConcurrentModificationException, thrown while the context is being built
 * (in YARN client mode after the application was submitted). Once means: when the file named by
 * the environment variable ERRORCOUNT_TEST_RACE_ONCE exists; it is deleted as the failure is thrown,
 * so the next start goes through. Test harness only (tests/harness/race_once.py builds it).
 */
public final class RaceOnce extends SparkListener {
    public RaceOnce() {
        String path = System.getenv("ERRORCOUNT_TEST_RACE_ONCE");
        if (path != null && new File(path).delete()) {
            throw new ConcurrentModificationException("tests/harness/java/RaceOnce.java: a start-up race, once");
        }
    }
}
