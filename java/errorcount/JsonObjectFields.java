package errorcount;

/**
 * Fields of a JSON object, each by its names (aliases: OTLP's lowerCamelCase and proto names),
 * found in one pass over the object (Json.members); when a field's names are written more than
 * once, the last one written counts, and null is an absent field.
 */
final class JsonObjectFields {
    private final byte[][] names;  // every field's names, flattened
    private final int[] field;     // the field each name is of
    private final int count;

    JsonObjectFields(byte[][]... fields) {
        java.util.List<byte[]> flat = new java.util.ArrayList<>();
        java.util.List<Integer> of = new java.util.ArrayList<>();
        for (int i = 0; i < fields.length; i++) {
            for (byte[] name : fields[i]) {
                flat.add(name);
                of.add(i);
            }
        }
        this.names = flat.toArray(new byte[0][]);
        this.field = of.stream().mapToInt(Integer::intValue).toArray();
        this.count = fields.length;
    }

    /** Each field's value position in the valid object at p: its last name written; -1 absent or null. */
    int[] find(byte[] b, int p, JsonContainers containers) {
        int[] found = new int[names.length];
        Json.members(b, p, names, found, containers);
        int[] at = new int[count];
        java.util.Arrays.fill(at, -1);
        for (int i = 0; i < names.length; i++) {
            at[field[i]] = Math.max(at[field[i]], found[i]);
        }
        for (int i = 0; i < count; i++) {
            at[i] = at[i] >= 0 && b[at[i]] == 'n' ? -1 : at[i];  // a valid value starting so is null
        }
        return at;
    }
}
