package errorcount;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.spark.sql.api.java.UDF1;

/**
 * An output-shape probe for make bench (the profile phase), not used by the job: string outputs as
 * a second function beside the packed long, called only where the long says ERROR; it classifies
 * the value again and returns its dimension values (here one: the line's first token, at most 64
 * bytes), the work a real dimension does. Measured against ProbeStruct.
 */
public final class ProbeSecond implements UDF1<byte[], String[]> {
    private static final long serialVersionUID = 1L;
    private static final int MAX_BYTES = 64;

    private final ClassifyLine classifier;

    public ProbeSecond(Map<String, String> settings) {
        this.classifier = new ClassifyLine(settings);
    }

    @Override
    public String[] call(byte[] value) {
        return (classifier.classify(value) & 15) == Outcome.ERROR ? firstToken(value) : null;
    }

    static String[] firstToken(byte[] value) {
        int end = 0;
        while (end < value.length && end < MAX_BYTES && value[end] != ' ') {
            end++;
        }
        return new String[] {new String(value, 0, end, StandardCharsets.UTF_8)};
    }
}
