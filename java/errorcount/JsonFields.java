package errorcount;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The fields a JSON event is read by (its time, level, status and message candidates, GROUP_BY's
 * {@code field:} dimensions), found in one pass over the object's top-level members instead of
 * one pass per name: every name is looked up as written, and a dotted one by its first segment
 * too, for the path through nested objects (docs/contract.md: "a member of that literal name,
 * else a path of dot-separated names"). The path's second segment is found in the same pass (the
 * nested object is read instead of skipped: `service.name` of every line costs no second pass).
 */
final class JsonFields implements java.io.Serializable {
    private static final long serialVersionUID = 1L;

    private final byte[][] names;         // the top-level names one pass looks for
    private final int[] literal;          // per field: its name's index in names
    private final int[] first;            // per field: its first segment's index in names; -1 undotted
    private final byte[][][] rest;        // per field: the segments after the first
    private final byte[][][] inner;       // per top-level name: the second segments of the paths through it, or null
    private final int[] innerFrom;        // per top-level name: where its inner names' positions start in a scan
    private final int[] second;           // per dotted field: its second segment's index in inner[first]
    private final int width;              // a scan's positions: the top-level names', then the inner ones'

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
        List<List<byte[]>> nested = new ArrayList<>();
        for (int i = 0; i < names.length; i++) {
            nested.add(new ArrayList<>());
        }
        this.second = new int[count];
        for (int f = 0; f < count; f++) {
            second[f] = first[f] < 0 ? -1 : intern(nested.get(first[f]), rest[f][0]);
        }
        this.inner = new byte[names.length][][];
        this.innerFrom = new int[names.length];
        int width = names.length;
        for (int i = 0; i < names.length; i++) {
            if (!nested.get(i).isEmpty()) {
                inner[i] = nested.get(i).toArray(new byte[0][]);
                innerFrom[i] = width;
                width += inner[i].length;
            }
        }
        this.width = width;
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

    /** The value positions of the valid object at p (its top-level names', then the paths' second segments), for `at`. */
    int[] scan(byte[] b, int p) {
        int[] found = new int[width];
        Json.members(b, p, names, found, 0, null, inner, innerFrom);
        return found;
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
        if (p < 0 || b[p] != '{') {
            return -1;  // a path never steps into an array or a scalar
        }
        p = found[innerFrom[first[f]] + second[f]];  // found by the scan
        for (int s = 1; s < rest[f].length; s++) {
            if (p < 0 || b[p] != '{') {
                return -1;
            }
            p = Json.member(b, p, rest[f][s]);
        }
        return p;
    }
}
