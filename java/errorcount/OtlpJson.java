package errorcount;

import java.nio.charset.StandardCharsets;

/**
 * One OTLP export request in the {@code otlp_json} encoding (OTLP's JSON: protobuf's JSON mapping
 * of ExportLogsServiceRequest, 64-bit integers as decimal strings), read as OtlpProto reads the
 * other encoding, to the same Sink (docs/contract.md, "OTLP").
 *
 * <p>Well-formed means: the value is one strict JSON object, and every field the contract reads
 * has its type: resourceLogs, attributes, scopeLogs, logRecords arrays of objects; resource,
 * scope and an attribute's value objects; name, key, severityText, stringValue strings;
 * timeUnixNano and observedTimeUnixNano unsigned 64-bit integers and intValue a signed one (a
 * decimal string or a JSON integer); severityNumber a 32-bit JSON integer or its enum name;
 * boolValue true or false. null is an absent field. A field is found by its lowerCamelCase name or
 * its proto name (both are protobuf's JSON names); when a name is written twice the last one
 * counts, and of an attribute value's members the last one written. Any other field is skipped,
 * whatever it holds.
 */
final class OtlpJson {
    private static final byte[][] RESOURCE_LOGS = names("resourceLogs", "resource_logs");
    private static final byte[][] RESOURCE = names("resource");
    private static final byte[][] ATTRIBUTES = names("attributes");
    private static final byte[][] SCOPE_LOGS = names("scopeLogs", "scope_logs");
    private static final byte[][] SCOPE = names("scope");
    private static final byte[][] NAME = names("name");
    private static final byte[][] LOG_RECORDS = names("logRecords", "log_records");
    private static final byte[][] TIME = names("timeUnixNano", "time_unix_nano");
    private static final byte[][] OBSERVED = names("observedTimeUnixNano", "observed_time_unix_nano");
    private static final byte[][] SEVERITY_NUMBER = names("severityNumber", "severity_number");
    private static final byte[][] SEVERITY_TEXT = names("severityText", "severity_text");
    private static final byte[][] KEY = names("key");
    private static final byte[][] VALUE = names("value");
    // An AnyValue's members, by their kind as a label (OtlpValues), two names each
    private static final byte[][] MEMBERS = names("stringValue", "string_value", "boolValue", "bool_value", "intValue",
            "int_value", "doubleValue", "double_value", "arrayValue", "array_value", "kvlistValue", "kvlist_value",
            "bytesValue", "bytes_value");
    private static final int STRING_MEMBER = 0, BOOL_MEMBER = 1, INT_MEMBER = 2;
    private static final String[] LEVELS = {"TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL"};
    private static final byte[][] SEVERITY_NAMES = severityNames();
    // The fields read of each object, found in one pass over it
    private static final JsonObjectFields RESOURCE_LOGS_FIELDS = new JsonObjectFields(RESOURCE, SCOPE_LOGS);
    private static final JsonObjectFields SCOPE_LOGS_FIELDS = new JsonObjectFields(SCOPE, LOG_RECORDS);
    private static final JsonObjectFields RECORD_FIELDS = new JsonObjectFields(TIME, OBSERVED, SEVERITY_NUMBER, SEVERITY_TEXT, ATTRIBUTES);
    private static final JsonObjectFields PAIR_FIELDS = new JsonObjectFields(KEY, VALUE);
    private static final JsonObjectFields REQUEST_FIELDS = new JsonObjectFields(RESOURCE_LOGS);
    private static final JsonObjectFields RESOURCE_FIELDS = new JsonObjectFields(ATTRIBUTES);
    private static final JsonObjectFields SCOPE_FIELDS = new JsonObjectFields(NAME);
    private static final long MAX_INT32 = Integer.MAX_VALUE, MIN_INT32 = Integer.MIN_VALUE;

    // One request's reading: its bytes, where its containers end (validValue's), what is wanted
    private final byte[] b;
    private final JsonContainers containers = new JsonContainers();
    private final OtlpProto.Wanted wanted;
    private final OtlpValues values;
    private final OtlpProto.Sink sink;

    private OtlpJson(byte[] b, OtlpProto.Wanted wanted, OtlpValues values, OtlpProto.Sink sink) {
        this.b = b;
        this.wanted = wanted;
        this.values = values;
        this.sink = sink;
    }

    /** The log records of {@code b}, in order, to the sink; false if the request is malformed. */
    static boolean read(byte[] b, OtlpProto.Wanted wanted, OtlpValues values, OtlpProto.Sink sink) {
        return new OtlpJson(b, wanted, values, sink).read();
    }

    private boolean read() {
        int start = Json.skipWhitespace(b, 0, b.length);
        int end = Json.validValue(b, 0, b.length, containers);
        if (end < 0 || Json.skipWhitespace(b, end, b.length) != b.length || b[start] != '{') {
            return false;
        }
        int[] list = elements(REQUEST_FIELDS.find(b, start, containers)[0]);
        if (list == null || list.length == 0) {
            return false;  // no resourceLogs: as OtlpProto.read says why
        }
        for (int resourceLogs : list) {
            if (!resourceLogs(resourceLogs)) {
                return false;
            }
        }
        return true;
    }

    private boolean resourceLogs(int at) {
        clear(wanted.resource);
        int[] found = RESOURCE_LOGS_FIELDS.find(b, at, containers);
        int resource = found[0];
        if (resource >= 0 && (b[resource] != '{' || !attributes(RESOURCE_FIELDS.find(b, resource, containers)[0], wanted.resource))) {
            return false;
        }
        int[] scopes = elements(found[1]);
        if (scopes == null) {
            return false;
        }
        for (int scopeLogs : scopes) {
            if (wanted.scopeName >= 0) {
                values.clear(wanted.scopeName);
            }
            int[] scoped = SCOPE_LOGS_FIELDS.find(b, scopeLogs, containers);
            int scope = scoped[0];
            int name = scope >= 0 && b[scope] == '{' ? SCOPE_FIELDS.find(b, scope, containers)[0] : -1;
            if (scope >= 0 && b[scope] != '{' || name >= 0 && b[name] != '"') {
                return false;
            }
            if (name >= 0 && wanted.scopeName >= 0) {
                byte[] text = Json.decode(b, name);
                values.set(wanted.scopeName, OtlpValues.TEXT, text, 0, text.length, 0);
            }
            int[] records = elements(scoped[1]);
            if (records == null) {
                return false;
            }
            for (int record : records) {
                if (!logRecord(record)) {
                    return false;
                }
            }
        }
        return true;
    }

    private boolean logRecord(int at) {
        clear(wanted.attributes);
        int[] found = RECORD_FIELDS.find(b, at, containers);
        long[] number = new long[1];
        if (!JsonIntegers.unsigned(b, found[0], number)) {
            return false;
        }
        long time = number[0];
        if (!JsonIntegers.unsigned(b, found[1], number)) {
            return false;
        }
        long observed = number[0];
        int severityAt = found[2];
        int severity = 0;
        if (severityAt >= 0 && b[severityAt] == '"') {
            severity = severityName(Json.decode(b, severityAt));
            if (severity < 0) {
                return false;
            }
        } else if (severityAt >= 0) {
            if (!JsonIntegers.signed(b, severityAt, MIN_INT32, MAX_INT32, number)) {
                return false;
            }
            severity = (int) number[0];
        }
        int textAt = found[3];
        if (textAt >= 0 && b[textAt] != '"') {
            return false;
        }
        byte[] text = textAt >= 0 ? Json.decode(b, textAt) : new byte[0];
        if (!attributes(found[4], wanted.attributes)) {
            return false;
        }
        sink.record(time, observed, severity, text, 0, text.length, values);
        return true;
    }

    /** The attributes array at `at` (-1: none): each checked, the wanted keys' first values set. */
    private boolean attributes(int at, byte[][] keys) {
        int[] pairs = elements(at);
        if (pairs == null) {
            return false;
        }
        for (int pair : pairs) {
            int[] parts = PAIR_FIELDS.find(b, pair, containers);
            int keyAt = parts[0];
            int valueAt = parts[1];
            if (keyAt >= 0 && b[keyAt] != '"' || valueAt >= 0 && b[valueAt] != '{') {
                return false;
            }
            int[] found = new int[MEMBERS.length];
            java.util.Arrays.fill(found, -1);
            if (valueAt >= 0) {
                Json.members(b, valueAt, MEMBERS, found, containers);
            }
            int last = -1;  // the member written last: its index in MEMBERS
            for (int i = 0; i < found.length; i++) {
                if (found[i] < 0 || b[found[i]] == 'n') {  // absent or null
                    continue;
                }
                if (!typed(found[i], i / 2)) {
                    return false;
                }
                last = last < 0 || found[i] > found[last] ? i : last;
            }
            byte[] key = keyAt >= 0 ? Json.decode(b, keyAt) : new byte[0];
            for (int i = 0; i < keys.length; i++) {
                if (keys[i] != null && !values.isSet(i) && java.util.Arrays.equals(keys[i], key)) {
                    set(last < 0 ? -1 : found[last], last < 0 ? -1 : last / 2, i);
                }
            }
        }
        return true;
    }

    /** Whether the member value at p has its kind's type (the kinds the contract reads; any other is not checked). */
    private boolean typed(int p, int kind) {
        long[] number = new long[1];
        switch (kind) {
            case STRING_MEMBER: return b[p] == '"';
            case BOOL_MEMBER: return b[p] == 't' || b[p] == 'f';  // a valid value: true or false
            case INT_MEMBER: return JsonIntegers.signed(b, p, Long.MIN_VALUE, Long.MAX_VALUE, number);
            default: return true;
        }
    }

    private void set(int p, int kind, int i) {
        long[] number = new long[1];
        if (kind == STRING_MEMBER) {
            byte[] text = Json.decode(b, p);
            values.set(i, OtlpValues.TEXT, text, 0, text.length, 0);
        } else if (kind == BOOL_MEMBER) {
            values.set(i, b[p] == 't' ? OtlpValues.TRUE : OtlpValues.FALSE, null, 0, 0, 0);
        } else if (kind == INT_MEMBER && JsonIntegers.signed(b, p, Long.MIN_VALUE, Long.MAX_VALUE, number)) {
            values.set(i, OtlpValues.NUMBER, null, 0, 0, number[0]);
        } else {
            values.set(i, OtlpValues.EMPTY, null, 0, 0, 0);
        }
    }

    /** The positions of the array at p's elements (-1: none), or null when it is no array of objects. */
    private int[] elements(int p) {
        if (p < 0) {
            return new int[0];
        }
        if (b[p] != '[') {
            return null;
        }
        int[] found = new int[4];
        int count = 0;
        int q = Json.skipWhitespace(b, p + 1, b.length);
        while (b[q] != ']') {
            if (b[q] != '{') {
                return null;
            }
            if (count == found.length) {
                found = java.util.Arrays.copyOf(found, count * 2);
            }
            found[count++] = q;
            q = Json.skipWhitespace(b, Json.skip(b, q, containers), b.length);
            q = b[q] == ',' ? Json.skipWhitespace(b, q + 1, b.length) : q;
        }
        return java.util.Arrays.copyOf(found, count);
    }

    /** The number of an enum name of SeverityNumber (SEVERITY_NUMBER_ERROR, ...), or -1. */
    private static int severityName(byte[] name) {
        for (int i = 0; i < SEVERITY_NAMES.length; i++) {
            if (java.util.Arrays.equals(SEVERITY_NAMES[i], name)) {
                return i;
            }
        }
        return -1;
    }

    private static byte[][] severityNames() {
        byte[][] found = new byte[25][];
        found[0] = "SEVERITY_NUMBER_UNSPECIFIED".getBytes(StandardCharsets.US_ASCII);
        for (int n = 1; n <= 24; n++) {
            int step = (n - 1) % 4;
            found[n] = ("SEVERITY_NUMBER_" + LEVELS[(n - 1) / 4] + (step == 0 ? "" : Integer.toString(step + 1)))
                    .getBytes(StandardCharsets.US_ASCII);
        }
        return found;
    }

    private void clear(byte[][] keys) {
        for (int i = 0; i < keys.length; i++) {
            if (keys[i] != null) {
                values.clear(i);
            }
        }
    }

    private static byte[][] names(String... names) {
        byte[][] bytes = new byte[names.length][];
        for (int i = 0; i < names.length; i++) {
            bytes[i] = names[i].getBytes(StandardCharsets.US_ASCII);
        }
        return bytes;
    }
}
