package errorcount;

import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.logs.v1.LogRecord;
import io.opentelemetry.proto.logs.v1.ResourceLogs;
import io.opentelemetry.proto.logs.v1.ScopeLogs;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * make bench (o): what reading otlp_proto costs per log record, three ways over one file of
 * requests (bench/otlp.py writes it: each a 4-byte big-endian length, then the request): the
 * classifier's own reader (OtlpProto, what the job runs), protobuf-java's generated classes
 * (opentelemetry-proto: parse, then read the same fields), and the whole UDF (ClassifyOtlp.call,
 * outcomes and rows included). Each its best of 7 rounds after 3 warm-up rounds, the three taking
 * turns; prints one JSON line. In package errorcount to reach the package-private reader; never
 * in the job's jar.
 */
public final class OtlpDecode {
    private static final byte[] SERVICE = "service.name".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    private static long sink;

    public static void main(String[] args) throws Exception {
        List<byte[]> values = ValueFile.read(args[0]);
        long records = Long.parseLong(args[1]);
        OtlpProto.Wanted wanted = new OtlpProto.Wanted(new byte[][] {SERVICE, null}, new byte[][] {null,
            "http.route".getBytes(java.nio.charset.StandardCharsets.UTF_8)}, -1);
        Map<String, String> settings = new HashMap<>();
        for (String pair : args[2].split(";")) {
            settings.put(pair.substring(0, pair.indexOf('=')), pair.substring(pair.indexOf('=') + 1));
        }
        ClassifyOtlp udf = new ClassifyOtlp(settings);
        Runnable ours = () -> {
            for (byte[] value : values) {
                OtlpProto.read(value, wanted, new OtlpValues(2), (time, observed, severity, text, from, to, found) ->
                        sink += time + severity + (found.isSet(0) ? 1 : 0));
            }
        };
        Runnable generated = () -> {
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
        };
        Runnable whole = () -> {
            for (byte[] value : values) {
                sink += udf.call(value).size();
            }
        };
        double[] best = best(new Runnable[] {ours, generated, whole});
        System.out.printf("{\"ours_ns\": %.1f, \"protobuf_java_ns\": %.1f, \"udf_ns\": %.1f, \"requests\": %d, "
                + "\"log_records\": %d}%n", best[0] / records, best[1] / records, best[2] / records, values.size(), records);
    }

    /**
     * Each pass's best time in nanoseconds over 7 rounds after 3 warm-up rounds, the passes taking
     * turns within each round (a drift of the host's speed weighs on all of them alike).
     */
    private static double[] best(Runnable[] passes) {
        double[] best = new double[passes.length];
        java.util.Arrays.fill(best, Double.MAX_VALUE);
        for (int round = 0; round < 10; round++) {
            for (int i = 0; i < passes.length; i++) {
                long started = System.nanoTime();
                passes[i].run();
                if (round >= 3) {
                    best[i] = Math.min(best[i], System.nanoTime() - started);
                }
            }
        }
        if (sink == 42) {
            System.out.println();  // reads the sink, so no pass is dead code
        }
        return best;
    }
}
