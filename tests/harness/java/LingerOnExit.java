package errorcount.tests;

/**
 * A Java agent (-javaagent:LingerOnExit.jar=MILLISECONDS) whose JVM lingers that long as it exits: a
 * shutdown hook that sleeps, as a JVM does whose Spark takes its time to stop after the Python driver
 * exited. The exit code stays the one the JVM exits with. Test harness only (tests/harness/javac.py
 * builds it; tests/faults/test_signals.py uses it).
 */
public final class LingerOnExit {
    private LingerOnExit() {
    }

    public static void premain(String milliseconds) {
        long linger = Long.parseLong(milliseconds);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                Thread.sleep(linger);
            } catch (InterruptedException stopped) {
                Thread.currentThread().interrupt();
            }
        }, "linger-on-exit"));
    }
}
