package errorcount;

import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.catalyst.InternalRow;

/** One variant of OnePassTurns, loaded beside the classifier jar it measures. */
public final class OnePassRun {
    private OnePassRun() {
    }

    /** The pass of a settings file (name TAB value per line), every partition's records inside its bounds, as the job's. */
    public static Object pass(String settingsPath, String topic, long[] ends) throws Exception {
        Map<String, String> settings = new HashMap<>();
        for (String line : Files.readAllLines(Paths.get(settingsPath))) {
            String[] parts = line.split("\t", -1);
            settings.put(parts[0], parts[1]);
        }
        Map<String, long[][]> bounds = new HashMap<>();
        bounds.put(topic, new long[][] {new long[ends.length], ends.clone()});
        // 250: dead-letter slots of 1000 over 4 partitions. A build whose tasks can emit one Arrow
        // stream (GroupColumns) does, as the job's batches do; an older one emits its rows.
        for (java.lang.reflect.Constructor<?> made : OnePass.class.getDeclaredConstructors()) {
            if (made.getParameterCount() == 6) {
                return made.newInstance(settings, 250L, bounds, false, true, true);
            }
        }
        return OnePass.class.getDeclaredConstructor(Map.class, long.class, Map.class, boolean.class, boolean.class)
                .newInstance(settings, 250L, bounds, false, true);
    }

    /** ns for every task's pass, its rows drawn. */
    public static long run(Object pass, List<List<InternalRow>> tasks) throws Exception {
        long start = System.nanoTime(), rows = 0;
        for (List<InternalRow> task : tasks) {
            for (Iterator<InternalRow> out = ((OnePass) pass).call(task.iterator()); out.hasNext(); out.next()) {
                rows++;
            }
        }
        return System.nanoTime() - start + (rows < 0 ? 1 : 0);
    }
}
