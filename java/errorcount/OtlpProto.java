package errorcount;

/**
 * One OTLP export request in the {@code otlp_proto} encoding (opentelemetry-proto
 * {@code collector/logs/v1/logs_service.proto}: ExportLogsServiceRequest → resource_logs (1) →
 * scope_logs (2) → log_records (2)), read as the contract reads it (docs/contract.md, "OTLP"): each
 * log record's times, severity number and text, and the values GROUP_BY asks for (the resource's
 * attributes, the scope's name, the record's attributes).
 *
 * <p>Well-formed means what protobuf's own parsers accept: every embedded message of a known
 * field is parsed too (a body's nested arrays and maps included), at most Protobuf.MAX_DEPTH
 * levels deep; a field whose wire type is not its declared type is an unknown field, skipped; a
 * scalar written twice keeps its last value and a message written twice is merged (protobuf's
 * rules). Strings are read as bytes, not checked as UTF-8 (the Collector's Go encoder does not
 * check them either; a label replaces what is not UTF-8).
 *
 * <p>{@link #read} calls the sink once per log record and returns false when the request is
 * malformed anywhere: the whole Kafka record is then one reject and what the sink received is to
 * be dropped.
 */
final class OtlpProto {
    /** Receives the log records of one request (either encoding: OtlpJson too). */
    interface Sink {
        /**
         * One log record: {@code timeNanos} and {@code observedNanos} as the unsigned 64-bit
         * nanoseconds they are (0: unknown), the severity number (an open enum: any int32; 0
         * unspecified), the severity text as text[textFrom, textTo) (empty: none), and GROUP_BY's
         * values (valid for this call only).
         */
        void record(long timeNanos, long observedNanos, int severity, byte[] text, int textFrom, int textTo, OtlpValues values);
    }

    /** Which values GROUP_BY reads, by dimension index: a resource attribute's key, a record attribute's key, the scope's name. */
    static final class Wanted implements java.io.Serializable {
        private static final long serialVersionUID = 1L;
        final byte[][] resource;    // the key, or null: not a resource: dimension
        final byte[][] attributes;  // the key, or null: not an attr: dimension
        final int scopeName;        // the index of scope:name, or -1

        Wanted(byte[][] resource, byte[][] attributes, int scopeName) {
            this.resource = resource;
            this.attributes = attributes;
            this.scopeName = scopeName;
        }
    }

    // The messages of the schema, and which field of each is an embedded message of which
    // (opentelemetry-proto logs.proto, common.proto, resource.proto; every other field is a scalar,
    // a string or bytes: nothing in it to parse).
    private static final int REQUEST = 0, RESOURCE_LOGS = 1, SCOPE_LOGS = 2, LOG_RECORD = 3, RESOURCE = 4, SCOPE = 5,
            KEY_VALUE = 6, ANY_VALUE = 7, ARRAY_VALUE = 8, KEY_VALUE_LIST = 9, ENTITY_REF = 10, NONE = -1;
    private static final int[][] EMBEDDED = {
        {NONE, RESOURCE_LOGS},                                   // request: resource_logs
        {NONE, RESOURCE, SCOPE_LOGS},                            // resource_logs: resource, scope_logs
        {NONE, SCOPE, LOG_RECORD},                               // scope_logs: scope, log_records
        {NONE, NONE, NONE, NONE, NONE, ANY_VALUE, KEY_VALUE},    // log record: body, attributes
        {NONE, KEY_VALUE, NONE, ENTITY_REF},                     // resource: attributes, entity_refs
        {NONE, NONE, NONE, KEY_VALUE},                           // scope: attributes
        {NONE, NONE, ANY_VALUE},                                 // key value: value
        {NONE, NONE, NONE, NONE, NONE, ARRAY_VALUE, KEY_VALUE_LIST},  // any value: array, kvlist
        {NONE, ANY_VALUE},                                       // array value: values
        {NONE, KEY_VALUE},                                       // key value list: values
        {},                                                      // entity ref: strings only
    };
    // Field numbers read (logs.proto, common.proto)
    private static final int RECORD_TIME = 1, RECORD_SEVERITY_NUMBER = 2, RECORD_SEVERITY_TEXT = 3, RECORD_ATTRIBUTES = 6,
            RECORD_OBSERVED_TIME = 11, ATTRIBUTES = 1, SCOPE_NAME = 1, SCOPE_ATTRIBUTES = 3, KEY = 1, VALUE = 2;

    private OtlpProto() {
    }

    /**
     * The log records of {@code value}, in order, to the sink; false if the request is malformed
     * or holds no resource_logs at all (no exporter writes such a request: a value of another
     * format that happens to parse as unknown fields would otherwise count as an empty request).
     */
    static boolean read(byte[] value, Wanted wanted, OtlpValues values, Sink sink) {
        Protobuf request = new Protobuf(value, 0, value.length);
        boolean any = false;
        while (request.next()) {
            if (embedded(REQUEST, request) != NONE) {
                any = true;
                if (!resourceLogs(request.message(), value, wanted, values, sink)) {
                    return false;
                }
            }
        }
        return any && !request.malformed();
    }

    /** The embedded message type of the reader's current field in a message of `type`, or NONE. */
    private static int embedded(int type, Protobuf reader) {
        int[] fields = EMBEDDED[type];
        return reader.wireType == Protobuf.LEN && reader.field < fields.length ? fields[reader.field] : NONE;
    }

    /** Whether `message` (null: too deep) is a well-formed message of `type`, every embedded message in it too. */
    private static boolean valid(Protobuf message, int type) {
        if (message == null) {
            return false;
        }
        while (message.next()) {
            int inner = embedded(type, message);
            if (inner != NONE && !valid(message.message(), inner)) {
                return false;
            }
        }
        return !message.malformed();
    }

    /** One resource_logs: its resource's wanted attributes first (the fields may come in any order), then its scopes. */
    private static boolean resourceLogs(Protobuf resourceLogs, byte[] value, Wanted wanted, OtlpValues values, Sink sink) {
        if (resourceLogs == null) {
            return false;
        }
        clear(values, wanted.resource);
        Protobuf first = resourceLogs.copy();
        while (first.next()) {
            if (embedded(RESOURCE_LOGS, first) == RESOURCE && !attributesOf(first.message(), RESOURCE, ATTRIBUTES, wanted.resource, values)) {
                return false;
            }
        }
        while (resourceLogs.next()) {
            if (embedded(RESOURCE_LOGS, resourceLogs) == SCOPE_LOGS && !scopeLogs(resourceLogs.message(), value, wanted, values, sink)) {
                return false;
            }
        }
        return !resourceLogs.malformed();
    }

    /** One scope_logs: its scope's name first, then its log records. */
    private static boolean scopeLogs(Protobuf scopeLogs, byte[] value, Wanted wanted, OtlpValues values, Sink sink) {
        if (scopeLogs == null) {
            return false;
        }
        if (wanted.scopeName >= 0) {
            values.clear(wanted.scopeName);
        }
        Protobuf first = scopeLogs.copy();
        while (first.next()) {
            if (embedded(SCOPE_LOGS, first) == SCOPE && !scope(first.message(), value, wanted, values)) {
                return false;
            }
        }
        while (scopeLogs.next()) {
            if (embedded(SCOPE_LOGS, scopeLogs) == LOG_RECORD && !logRecord(scopeLogs.message(), value, wanted, values, sink)) {
                return false;
            }
        }
        return !scopeLogs.malformed();
    }

    private static boolean scope(Protobuf scope, byte[] value, Wanted wanted, OtlpValues values) {
        if (scope == null) {
            return false;
        }
        while (scope.next()) {
            if (scope.field == SCOPE_NAME && scope.wireType == Protobuf.LEN) {
                if (wanted.scopeName >= 0) {  // the last name written wins, across a merged scope too
                    values.set(wanted.scopeName, OtlpValues.TEXT, value, scope.from, scope.to, 0);
                }
            } else if (scope.field == SCOPE_ATTRIBUTES && embedded(SCOPE, scope) == KEY_VALUE && !valid(scope.message(), KEY_VALUE)) {
                return false;
            }
        }
        return !scope.malformed();
    }

    private static boolean logRecord(Protobuf record, byte[] value, Wanted wanted, OtlpValues values, Sink sink) {
        if (record == null) {
            return false;
        }
        clear(values, wanted.attributes);
        long time = 0;
        long observed = 0;
        int severity = 0;
        int textFrom = 0;
        int textTo = 0;
        while (record.next()) {
            int type = record.wireType;
            switch (record.field) {
                case RECORD_TIME:
                    time = type == Protobuf.FIXED64 ? record.number : time;
                    break;
                case RECORD_OBSERVED_TIME:
                    observed = type == Protobuf.FIXED64 ? record.number : observed;
                    break;
                case RECORD_SEVERITY_NUMBER:
                    severity = type == Protobuf.VARINT ? (int) record.number : severity;  // int32: the low 32 bits
                    break;
                case RECORD_SEVERITY_TEXT:
                    if (type == Protobuf.LEN) {
                        textFrom = record.from;
                        textTo = record.to;
                    }
                    break;
                case RECORD_ATTRIBUTES:
                    if (type == Protobuf.LEN && !keyValue(record.message(), wanted.attributes, values)) {
                        return false;
                    }
                    break;
                default:
                    int inner = embedded(LOG_RECORD, record);  // the body; anything else is a scalar or unknown
                    if (inner != NONE && !valid(record.message(), inner)) {
                        return false;
                    }
                    break;
            }
        }
        if (record.malformed()) {
            return false;
        }
        sink.record(time, observed, severity, value, textFrom, textTo, values);
        return true;
    }

    /** The wanted attributes of a resource (its field `field` holds them), each message checked. */
    private static boolean attributesOf(Protobuf message, int type, int field, byte[][] keys, OtlpValues values) {
        if (message == null) {
            return false;
        }
        while (message.next()) {
            int inner = embedded(type, message);
            if (inner == KEY_VALUE && message.field == field ? !keyValue(message.message(), keys, values)
                    : inner != NONE && !valid(message.message(), inner)) {
                return false;
            }
        }
        return !message.malformed();
    }

    /**
     * One KeyValue: checked, and when its key (the last written) is a wanted one not set yet, its
     * value set (the oneof member written last, across a merged value too).
     */
    private static boolean keyValue(Protobuf pair, byte[][] keys, OtlpValues values) {
        if (pair == null) {
            return false;
        }
        int keyFrom = -1;
        int keyTo = -1;
        int kind = OtlpValues.UNSET;
        int from = 0;
        int to = 0;
        long number = 0;
        while (pair.next()) {
            if (pair.field == KEY && pair.wireType == Protobuf.LEN) {
                keyFrom = pair.from;
                keyTo = pair.to;
            } else if (pair.field == VALUE && pair.wireType == Protobuf.LEN) {
                Protobuf any = pair.message();
                if (any == null) {
                    return false;
                }
                while (any.next()) {
                    int member = member(any);
                    if (member == OtlpValues.UNSET) {
                        continue;  // an unknown field, or a member's number with another wire type
                    }
                    if ((any.field == 5 || any.field == 6) && !valid(any.message(), any.field == 5 ? ARRAY_VALUE : KEY_VALUE_LIST)) {
                        return false;
                    }
                    kind = member;
                    from = any.from;
                    to = any.to;
                    number = any.number;
                }
                if (any.malformed()) {
                    return false;
                }
            }
        }
        if (pair.malformed()) {
            return false;
        }
        if (keys != null && keyFrom >= 0) {
            for (int i = 0; i < keys.length; i++) {
                if (keys[i] != null && !values.isSet(i) && pair.rangeEquals(keyFrom, keyTo, keys[i])) {
                    values.set(i, kind == OtlpValues.UNSET ? OtlpValues.EMPTY : kind, pair.bytes(), from, to, number);
                }
            }
        }
        return true;
    }

    /** The label kind of an AnyValue's current field: UNSET when it is no member (or has another wire type). */
    private static int member(Protobuf any) {
        switch (any.field) {
            case 1: return any.wireType == Protobuf.LEN ? OtlpValues.TEXT : OtlpValues.UNSET;
            case 2: return any.wireType == Protobuf.VARINT ? (any.number != 0 ? OtlpValues.TRUE : OtlpValues.FALSE) : OtlpValues.UNSET;
            case 3: return any.wireType == Protobuf.VARINT ? OtlpValues.NUMBER : OtlpValues.UNSET;
            case 4: return any.wireType == Protobuf.FIXED64 ? OtlpValues.EMPTY : OtlpValues.UNSET;
            case 5: case 6: case 7: return any.wireType == Protobuf.LEN ? OtlpValues.EMPTY : OtlpValues.UNSET;
            case 8: return any.wireType == Protobuf.VARINT ? OtlpValues.EMPTY : OtlpValues.UNSET;
            default: return OtlpValues.UNSET;
        }
    }

    private static void clear(OtlpValues values, byte[][] keys) {
        for (int i = 0; i < keys.length; i++) {
            if (keys[i] != null) {
                values.clear(i);
            }
        }
    }
}
