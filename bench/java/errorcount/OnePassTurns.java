package errorcount;

import java.io.File;
import java.net.URL;
import java.net.URLClassLoader;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * bench/one_pass_cost.py: OnePass.call over a file of values (ValueFile) as four tasks of
 * one topic, for several variants in one JVM, each a classifier jar and a settings file in its own
 * class loader (so two builds of the pass can be set side by side), rounds taking turns. Prints
 * per variant the median, first quartile and best ns per value over the last two thirds of rounds.
 *
 * <p>Compiled apart from OnePassRun, and never beside the classifier jar: a class the launcher's
 * loader could find would be shared by every variant (loaders ask their parent first).
 *
 * <p>Usage: OnePassTurns VALUES ROUNDS RUNNER_CLASSES JAR=SETTINGS...
 */
public final class OnePassTurns {
    private static final int PARTITIONS = 4;

    public static void main(String[] args) throws Exception {
        List<byte[]> values = ValueFile.read(args[0]);
        int rounds = Integer.parseInt(args[1]);
        List<List<InternalRow>> tasks = new ArrayList<>();
        long[] ends = new long[PARTITIONS];
        UTF8String topic = UTF8String.fromString("bench");
        for (int p = 0; p < PARTITIONS; p++) {
            tasks.add(new ArrayList<>());
        }
        for (int i = 0; i < values.size(); i++) {  // round-robin, as bench/corpus.py writes a topic
            int p = i % PARTITIONS;
            tasks.get(p).add(new GenericInternalRow(new Object[] {values.get(i), topic, p, ends[p]++, 1_767_600_000_000_000L + i}));
        }
        int n = args.length - 3;
        Object[] passes = new Object[n];
        Method[] runs = new Method[n];
        for (int v = 0; v < n; v++) {
            String[] variant = args[v + 3].split("=", 2);
            URL[] urls = {new File(args[2]).toURI().toURL(), new File(variant[0]).toURI().toURL()};
            Class<?> runner = new URLClassLoader(urls, OnePassTurns.class.getClassLoader()).loadClass("errorcount.OnePassRun");
            passes[v] = runner.getMethod("pass", String.class, String.class, long[].class).invoke(null, variant[1], "bench", ends);
            runs[v] = runner.getMethod("run", Object.class, List.class);
        }
        long[][] times = new long[n][rounds];
        for (int r = 0; r < rounds; r++) {
            for (int k = 0; k < n; k++) {
                int v = (r + k) % n;  // each variant first in turn
                times[v][r] = (long) runs[v].invoke(null, passes[v], tasks);
            }
        }
        for (int v = 0; v < n; v++) {
            long[] warm = Arrays.copyOfRange(times[v], rounds / 3, rounds);
            Arrays.sort(warm);
            double per = values.size();
            System.out.printf("{\"variant\": \"%s\", \"median_ns\": %.1f, \"q1_ns\": %.1f, \"best_ns\": %.1f}%n", args[v + 3],
                    warm[warm.length / 2] / per, warm[warm.length / 4] / per, warm[0] / per);
        }
    }
}
