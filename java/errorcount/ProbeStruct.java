package errorcount;

import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.api.java.UDF1;

/**
 * An output-shape probe for make bench (the profile phase), not used by the job: the classifier's
 * answer as a struct {@code <packed: long, dims: array<string>>}, one call per record, the dimension
 * values filled for ERROR records only. Measured against ProbeSecond, the other way to give the
 * classifier string outputs: which one the per-dimension counts use is decided by that figure.
 */
public final class ProbeStruct implements UDF1<byte[], Row> {
    private static final long serialVersionUID = 1L;

    private final ClassifyLine classifier;

    public ProbeStruct(Map<String, String> settings) {
        this.classifier = new ClassifyLine(settings);
    }

    @Override
    public Row call(byte[] value) {
        long packed = classifier.classify(value);
        return RowFactory.create(packed, (packed & 15) == Outcome.ERROR ? ProbeSecond.firstToken(value) : null);
    }
}
