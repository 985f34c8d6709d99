package errorcount;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The fields a JSON event is read by (its time, level, status and message candidates, GROUP_BY's
 * {@code field:} dimensions), found in the one pass that validates the event (a second pass over
 * its members cost a quarter of the reading: docs/performance.md, "Reading JSON"): every name is
 * looked up as written, and a dotted one by its first segment too, for the path through nested
 * objects (docs/contract.md: "a member of that literal name, else a path of dot-separated names").
 */
final class JsonFields implements java.io.Serializable {
    private static final long serialVersionUID = 1L;

    private final byte[][] names;         // the top-level names one pass looks for
    private final int[] literal;          // per field: its name's index in names
    private final int[] first;            // per field: its first segment's index in names; -1 undotted
    private final byte[][][] rest;        // per field: the segments after the first

    /** fields: each field's name (UTF-8), in the order `at` numbers them. */
    JsonFields(List<byte[]> fields) {
        List<byte[]> top = new ArrayList<>();
        int count = fields.size();
        this.literal = new int[count];
        this.first = new int[count];
        this.rest = new byte[count][][];
        for (int f = 0; f < count; f++) {
            byte[] name = fields.get(f);
            literal[f] = intern(top, name);
            List<byte[]> segments = segments(name);
            first[f] = segments.size() > 1 ? intern(top, segments.get(0)) : -1;
            rest[f] = segments.subList(1, segments.size()).toArray(new byte[0][]);
        }
        this.names = top.toArray(new byte[0][]);
    }

    /** The index of `name` in `names`, added at the end when it is not there yet. */
    private static int intern(List<byte[]> names, byte[] name) {
        for (int i = 0; i < names.size(); i++) {
            if (Arrays.equals(names.get(i), name)) {
                return i;
            }
        }
        names.add(name);
        return names.size() - 1;
    }

    private static List<byte[]> segments(byte[] name) {
        List<byte[]> segments = new ArrayList<>();
        int from = 0;
        for (int i = 0; i <= name.length; i++) {
            if (i == name.length || name[i] == '.') {
                segments.add(Arrays.copyOfRange(name, from, i));
                from = i + 1;
            }
        }
        return segments;
    }

    /**
     * Validates the value at p (Json.validValue) and, in the same pass, finds the top-level value
     * positions of an object there into `found` (of length 1), for `at`: the position after the
     * value, or -1 when it is not valid JSON.
     */
    int validScan(byte[] b, int p, int[][] found) {
        found[0] = new int[names.length];
        return Json.validObject(b, p, b.length, names, found[0]);
    }

    /**
     * The value position of field f, from a `scan` of its object: the member of that literal name,
     * else, only if there is none, the dotted path through nested objects; or -1.
     */
    int at(byte[] b, int[] found, int f) {
        int p = found[literal[f]];
        if (p >= 0 || first[f] < 0) {
            return p;
        }
        p = found[first[f]];
        for (byte[] segment : rest[f]) {
            if (p < 0 || b[p] != '{') {
                return -1;  // a path never steps into an array or a scalar
            }
            p = Json.member(b, p, segment);
        }
        return p;
    }
}
