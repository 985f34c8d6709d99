package errorcount;

import java.util.Arrays;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * A series as it is built (Grouping.series): its values' UTF-8 bytes and separators. The one pass
 * keeps one per task and empties it for each record (SeriesIds looks its bytes up; only a series
 * new to the task is copied); the classifier's UDF makes one per call and hands its bytes to Spark
 * as the UTF8String it stores. Never shared between threads.
 */
final class SeriesBuffer {
    private byte[] bytes = new byte[128];
    private int size;

    void reset() {
        size = 0;
    }

    int size() {
        return size;
    }

    void write(byte b) {
        room(1);
        bytes[size++] = b;
    }

    void write(byte[] b, int start, int end) {
        room(end - start);
        System.arraycopy(b, start, bytes, size, end - start);
        size += end - start;
    }

    void write(byte[] b) {
        write(b, 0, b.length);
    }

    /** The bytes written since `mark` made a label (Label.append's rule), in place. */
    void label(int mark) {
        if (!Label.isStored(bytes, mark, size)) {
            byte[] raw = Arrays.copyOfRange(bytes, mark, size);
            size = mark;
            Label.append(this, raw, 0, raw.length);
        }
    }

    /** The bytes written, without a copy: for a buffer written no more. */
    UTF8String toUtf8String() {
        return UTF8String.fromBytes(bytes, 0, size);
    }

    /** A copy of the bytes written. */
    byte[] copy() {
        return Arrays.copyOf(bytes, size);
    }

    /** Whether the bytes written are exactly `other`'s. */
    boolean holds(byte[] other) {
        return Arrays.equals(bytes, 0, size, other, 0, other.length);
    }

    /**
     * A hash of the bytes written, for SeriesIds: eight bytes a step (a series is tens of bytes:
     * a byte a step was a multiply chain of that length per record), the tail a byte a step.
     */
    int hash() {
        long h = 0x9E3779B97F4A7C15L ^ size;
        int i = 0;
        for (; i + 8 <= size; i += 8) {
            h = Long.rotateLeft((h ^ Bytes.word(bytes, i)) * 0xC2B2AE3D27D4EB4FL, 29);
        }
        for (; i < size; i++) {
            h = (h ^ bytes[i]) * 0x100000001B3L;
        }
        h = (h ^ (h >>> 32)) * 0xD6E8FEB86659FD93L;
        return (int) (h ^ (h >>> 32));
    }

    private void room(int more) {
        if (size + more > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(2 * bytes.length, size + more));
        }
    }
}
