package errorcount;

import org.apache.spark.unsafe.types.UTF8String;

/**
 * One record's series as it is built (Grouping.series): its values' UTF-8 bytes and separators,
 * handed to Spark as the UTF8String it stores, so no Java String is built and encoded again per
 * ERROR record. Made and dropped within one call; never shared.
 */
final class SeriesBuffer {
    private byte[] bytes = new byte[128];
    private int size;

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

    /** The bytes written, without a copy: this buffer is written no more. */
    UTF8String toUtf8String() {
        return UTF8String.fromBytes(bytes, 0, size);
    }

    private void room(int more) {
        if (size + more > bytes.length) {
            bytes = java.util.Arrays.copyOf(bytes, Math.max(2 * bytes.length, size + more));
        }
    }
}
