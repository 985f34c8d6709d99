package errorcount;

import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.logs.v1.LogRecord;
import io.opentelemetry.proto.logs.v1.ResourceLogs;
import io.opentelemetry.proto.logs.v1.ScopeLogs;
import java.io.DataInputStream;
import java.io.FileInputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * make bench (o): what reading otlp_proto costs per log record, three ways over one file of
 * requests (bench/otlp.py writes it: each a 4-byte big-endian length, then the request): the
 * classifier's own reader (OtlpProto, what the job runs), protobuf-java's generated classes
 * (opentelemetry-proto: parse, then read the same fields), and the whole UDF (ClassifyOtlp.call,
 * outcomes and rows included). Each the best of 5 timed passes after 3 warm-up passes; prints one
 * JSON line. In package errorcount to reach the package-private reader; never in the job's jar.
 */
public final class OtlpDecode {
    private static final byte[] SERVICE = "service.name".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    private static long sink;

    public static void main(String[] args) throws Exception {
        List<byte[]> values = read(args[0]);
        long records = Long.parseLong(args[1]);
        OtlpProto.Wanted wanted = new OtlpProto.Wanted(new byte[][] {SERVICE, null}, new byte[][] {null,
            "http.route".getBytes(java.nio.charset.StandardCharsets.UTF_8)}, -1);
        Map<String, String> settings = new HashMap<>();
        for (String pair : args[2].split(";")) {
            settings.put(pair.substring(0, pair.indexOf('=')), pair.substring(pair.indexOf('=') + 1));
        }
        ClassifyOtlp udf = new ClassifyOtlp(settings);
        double ours = best(() -> {
            for (byte[] value : values) {
                OtlpProto.read(value, wanted, new OtlpValues(2), (time, observed, severity, text, from, to, found) ->
                        sink += time + severity + (found.isSet(0) ? 1 : 0));
            }
        }) / records;
        double generated = best(() -> {
            for (byte[] value : values) {
                try {
                    for (ResourceLogs resource : ExportLogsServiceRequest.parseFrom(value).getResourceLogsList()) {
                        boolean named = false;
                        for (KeyValue pair : resource.getResource().getAttributesList()) {
                            named |= pair.getKey().equals("service.name");
                        }
                        for (ScopeLogs scope : resource.getScopeLogsList()) {
                            for (LogRecord record : scope.getLogRecordsList()) {
                                sink += record.getTimeUnixNano() + record.getSeverityNumberValue() + (named ? 1 : 0)
                                        + record.getAttributesCount();
                            }
                        }
                    }
                } catch (com.google.protobuf.InvalidProtocolBufferException e) {
                    sink--;
                }
            }
        }) / records;
        double whole = best(() -> {
            for (byte[] value : values) {
                sink += udf.call(value).size();
            }
        }) / records;
        System.out.printf("{\"ours_ns\": %.1f, \"protobuf_java_ns\": %.1f, \"udf_ns\": %.1f, \"requests\": %d, "
                + "\"log_records\": %d, \"sink\": %d}%n", ours, generated, whole, values.size(), records, sink % 10);
    }

    /** The best of 5 timed passes after 3 warm-up passes, in nanoseconds. */
    private static double best(Runnable pass) {
        for (int i = 0; i < 3; i++) {
            pass.run();
        }
        long best = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            long started = System.nanoTime();
            pass.run();
            best = Math.min(best, System.nanoTime() - started);
        }
        return best;
    }

    private static List<byte[]> read(String path) throws Exception {
        List<byte[]> values = new ArrayList<>();
        try (DataInputStream in = new DataInputStream(new java.io.BufferedInputStream(new FileInputStream(path)))) {
            while (in.available() > 0) {
                byte[] value = new byte[in.readInt()];
                in.readFully(value);
                values.add(value);
            }
        }
        return values;
    }
}
