package errorcount;

/**
 * One OTLP export request in the {@code otlp_proto} encoding (opentelemetry-proto
 * {@code collector/logs/v1/logs_service.proto}: ExportLogsServiceRequest → resource_logs (1) →
 * scope_logs (2) → log_records (2)), read as the contract reads it: each log record's time, its
 * severity number and text, in order. A field whose wire type is not its declared type is an
 * unknown field, skipped, as protobuf's own parsers do; a scalar field written twice keeps its
 * last value (protobuf's merge rule).
 *
 * <p>{@link #read} calls the sink once per log record and returns false when the request is
 * malformed anywhere (the whole Kafka record is then one reject; what the sink received is to be
 * dropped).
 */
final class OtlpProto {
    /** Receives the log records of one request. */
    interface Sink {
        /**
         * One log record: {@code timeNanos} and {@code observedNanos} as the unsigned 64-bit
         * nanoseconds they are (0: unknown), the severity number (an open enum: any int32; 0
         * unspecified) and the severity text as bytes[textFrom, textTo) of the request (empty: none).
         */
        void record(long timeNanos, long observedNanos, int severity, int textFrom, int textTo);
    }

    // Field numbers (logs.proto)
    private static final int REQUEST_RESOURCE_LOGS = 1;
    private static final int RESOURCE_LOGS_SCOPE_LOGS = 2;
    private static final int SCOPE_LOGS_LOG_RECORDS = 2;
    private static final int RECORD_TIME = 1;
    private static final int RECORD_SEVERITY_NUMBER = 2;
    private static final int RECORD_SEVERITY_TEXT = 3;
    private static final int RECORD_OBSERVED_TIME = 11;

    private OtlpProto() {
    }

    /** The log records of {@code value}, in order, to the sink; false if the request is malformed. */
    static boolean read(byte[] value, Sink sink) {
        Protobuf request = new Protobuf(value, 0, value.length);
        while (request.next()) {
            if (request.field == REQUEST_RESOURCE_LOGS && request.wireType == Protobuf.LEN
                    && !resourceLogs(request.message(), value, sink)) {
                return false;
            }
        }
        return !request.malformed();
    }

    private static boolean resourceLogs(Protobuf resource, byte[] value, Sink sink) {
        while (resource.next()) {
            if (resource.field == RESOURCE_LOGS_SCOPE_LOGS && resource.wireType == Protobuf.LEN
                    && !scopeLogs(resource.message(), value, sink)) {
                return false;
            }
        }
        return !resource.malformed();
    }

    private static boolean scopeLogs(Protobuf scope, byte[] value, Sink sink) {
        while (scope.next()) {
            if (scope.field == SCOPE_LOGS_LOG_RECORDS && scope.wireType == Protobuf.LEN
                    && !logRecord(scope.message(), sink)) {
                return false;
            }
        }
        return !scope.malformed();
    }

    private static boolean logRecord(Protobuf record, Sink sink) {
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
                default:
                    break;  // body, attributes, flags, trace and span IDs, event name, unknown fields
            }
        }
        if (record.malformed()) {
            return false;
        }
        sink.record(time, observed, severity, textFrom, textTo);
        return true;
    }
}
