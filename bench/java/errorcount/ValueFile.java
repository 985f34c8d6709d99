package errorcount;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.FileInputStream;
import java.util.ArrayList;
import java.util.List;

/** The bench's files of values (bench/otlp.py, bench/json_read.py): each a 4-byte big-endian length, then the value. */
final class ValueFile {
    private ValueFile() {
    }

    static List<byte[]> read(String path) throws Exception {
        List<byte[]> values = new ArrayList<>();
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(new FileInputStream(path)))) {
            while (in.available() > 0) {
                byte[] value = new byte[in.readInt()];
                in.readFully(value);
                values.add(value);
            }
        }
        return values;
    }
}
