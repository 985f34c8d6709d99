package errorcount;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * What the json contract's reading costs per event, two ways over one file of values (each a
 * 4-byte big-endian length, then the value; bench/json_read.py writes it): the classifier's own
 * reader (JsonFields.validScan: validity and the top-level members in one pass, what JsonEvent
 * runs) and jackson-core's streaming JsonParser (shipped with Spark), each answering the same
 * question: is the value one strict JSON object, and what are the values of the fields the job
 * reads (a member of the literal name, else the dotted path through nested objects; strings
 * decoded, anything else as written). Both answer every value first and the answers are compared;
 * then each its best of 7 rounds after 3 warm-up rounds, taking turns. Prints one JSON line. In
 * package errorcount to reach the package-private reader; never in the job's jar.
 */
public final class JsonRead {
    private static long sink;

    public static void main(String[] args) throws Exception {
        List<byte[]> values = ValueFile.read(args[0]);
        String[] fields = args[1].split(",");
        JsonFields ours = new JsonFields(bytesList(fields));
        Jackson theirs = new Jackson(fields);
        int disagree = 0;
        StringBuilder examples = new StringBuilder();
        for (byte[] value : values) {
            String a = answer(ours, fields.length, value), b = theirs.answer(value);
            if (!a.equals(b)) {
                if (disagree++ < 5) {
                    examples.append(examples.length() == 0 ? "" : ", ").append(quote(new String(value, StandardCharsets.UTF_8)))
                            .append(": ").append(quote(a)).append(" vs ").append(quote(b));
                }
            }
        }
        Runnable ownRun = () -> values.forEach(v -> sink += timedOwn(ours, fields.length, v));
        Runnable jacksonRun = () -> values.forEach(v -> sink += theirs.timed(v));
        long[] best = {Long.MAX_VALUE, Long.MAX_VALUE};
        for (int round = 0; round < 10; round++) {
            long own = time(ownRun), other = time(jacksonRun);
            if (round >= 3) {
                best[0] = Math.min(best[0], own);
                best[1] = Math.min(best[1], other);
            }
        }
        System.out.printf("{\"values\": %d, \"own_ns\": %.1f, \"jackson_ns\": %.1f, \"disagree\": %d, \"examples\": \"%s\", \"sink\": %d}%n",
                values.size(), best[0] / (double) values.size(), best[1] / (double) values.size(), disagree,
                examples.toString().replace("\\", "\\\\").replace("\"", "\\\""), sink & 1);
    }

    private static long time(Runnable run) {
        long started = System.nanoTime();
        run.run();
        return System.nanoTime() - started;
    }

    /** The classifier's reading: null for not one strict JSON object, else each field's value. */
    static String answer(JsonFields fields, int count, byte[] b) {
        int start = Json.skipWhitespace(b, 0, b.length);
        int[][] found = new int[1][];
        int after = start < b.length && b[start] == '{' ? fields.validScan(b, start, found) : -1;
        if (after < 0 || Json.skipWhitespace(b, after, b.length) != b.length) {
            return "invalid";
        }
        int[] at = found[0];
        StringBuilder out = new StringBuilder("valid");
        for (int f = 0; f < count; f++) {
            int p = fields.at(b, at, f);
            out.append('|');
            if (p >= 0) {
                out.append(b[p] == '"' ? new String(Json.decode(b, p), StandardCharsets.UTF_8)
                        : new String(b, p, Json.skip(b, p) - p, StandardCharsets.UTF_8));
            } else {
                out.append("-");
            }
        }
        return out.toString();
    }

    /** The same work without building answers: check, find, decode the strings found. */
    static long timedOwn(JsonFields fields, int count, byte[] b) {
        int start = Json.skipWhitespace(b, 0, b.length);
        int[][] found = new int[1][];
        int after = start < b.length && b[start] == '{' ? fields.validScan(b, start, found) : -1;
        if (after < 0 || Json.skipWhitespace(b, after, b.length) != b.length) {
            return -1;
        }
        int[] at = found[0];
        long sum = 0;
        for (int f = 0; f < count; f++) {
            int p = fields.at(b, at, f);
            sum += p < 0 ? 0 : b[p] == '"' ? Json.decode(b, p).length : p;
        }
        return sum;
    }

    /** jackson-core's streaming parser, one pass: top-level members, and one level down for dotted fields. */
    static final class Jackson {
        private final JsonFactory factory = new JsonFactory();
        private final String[] literal, first, second;

        Jackson(String[] fields) {
            literal = fields;
            first = new String[fields.length];
            second = new String[fields.length];
            for (int f = 0; f < fields.length; f++) {
                int dot = fields[f].indexOf('.');
                if (dot > 0 && fields[f].indexOf('.', dot + 1) < 0) {  // the job's defaults: at most two segments
                    first[f] = fields[f].substring(0, dot);
                    second[f] = fields[f].substring(dot + 1);
                }
            }
        }

        String answer(byte[] b) {
            String[] found = new String[literal.length], path = new String[literal.length];
            try (JsonParser parser = factory.createParser(b)) {
                if (parser.nextToken() != JsonToken.START_OBJECT) {
                    return "invalid";
                }
                while (parser.nextToken() == JsonToken.FIELD_NAME) {
                    String name = parser.currentName();
                    JsonToken token = parser.nextToken();
                    boolean descended = false;
                    for (int f = 0; f < literal.length; f++) {
                        if (first[f] != null && first[f].equals(name)) {
                            path[f] = "-";  // the last member of that name decides the path
                        }
                    }
                    if (token == JsonToken.START_OBJECT && isFirst(name)) {
                        descend(parser, b, name, path);
                        descended = true;
                    }
                    String text = descended ? null : text(parser, b, token);
                    for (int f = 0; f < literal.length; f++) {
                        if (literal[f].equals(name)) {
                            found[f] = descended ? "object" : text;
                        }
                    }
                }
                if (parser.currentToken() != JsonToken.END_OBJECT || parser.nextToken() != null) {
                    return "invalid";
                }
            } catch (java.io.IOException | RuntimeException e) {
                return "invalid";
            }
            StringBuilder out = new StringBuilder("valid");
            for (int f = 0; f < literal.length; f++) {
                String value = found[f] != null ? found[f] : path[f] != null ? path[f] : "-";
                out.append('|').append(value);
            }
            return out.toString();
        }

        private boolean isFirst(String name) {
            for (String segment : first) {
                if (name.equals(segment)) {
                    return true;
                }
            }
            return false;
        }

        /** Inside the object member `name`: the values of the dotted fields that start with it. */
        private void descend(JsonParser parser, byte[] b, String name, String[] path) throws java.io.IOException {
            long from = parser.currentTokenLocation().getByteOffset();
            while (parser.nextToken() == JsonToken.FIELD_NAME) {
                String inner = parser.currentName();
                String text = text(parser, b, parser.nextToken());
                for (int f = 0; f < literal.length; f++) {
                    if (name.equals(first[f]) && inner.equals(second[f])) {
                        path[f] = text;
                    }
                }
            }
            sink += from;
        }

        /** A value's text: a string decoded (lone surrogates as U+FFFD, as Json.decode), else as written. */
        private static String text(JsonParser parser, byte[] b, JsonToken token) throws java.io.IOException {
            if (token == JsonToken.START_OBJECT || token == JsonToken.START_ARRAY) {
                int from = (int) parser.currentTokenLocation().getByteOffset();
                parser.skipChildren();
                int to = (int) parser.currentLocation().getByteOffset();
                return new String(b, from, to - from, StandardCharsets.UTF_8);
            }
            String text = parser.getText();
            return token == JsonToken.VALUE_STRING ? wellFormed(text) : text;
        }

        private static String wellFormed(String text) {
            StringBuilder out = new StringBuilder(text.length());
            for (int i = 0; i < text.length(); ) {
                int cp = text.codePointAt(i);
                out.appendCodePoint(Character.isSurrogate((char) cp) && cp < 0x10000 ? 0xFFFD : cp);
                i += Character.charCount(cp);
            }
            return new String(out.toString().getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8);
        }

        /** The same work without building answers: parse, skip, decode the wanted values. */
        long timed(byte[] b) {
            long sum = 0;
            try (JsonParser parser = factory.createParser(b)) {
                if (parser.nextToken() != JsonToken.START_OBJECT) {
                    return -1;
                }
                while (parser.nextToken() == JsonToken.FIELD_NAME) {
                    String name = parser.currentName();
                    JsonToken token = parser.nextToken();
                    if (token == JsonToken.START_OBJECT && isFirst(name)) {
                        while (parser.nextToken() == JsonToken.FIELD_NAME) {
                            sum += wanted(parser, parser.currentName(), parser.nextToken(), second);
                        }
                    } else {
                        sum += wanted(parser, name, token, literal);
                    }
                }
                return parser.nextToken() == null ? sum : -1;
            } catch (java.io.IOException | RuntimeException e) {
                return -1;
            }
        }

        private static long wanted(JsonParser parser, String name, JsonToken token, String[] names) throws java.io.IOException {
            if (token == JsonToken.START_OBJECT || token == JsonToken.START_ARRAY) {
                parser.skipChildren();
                return 0;
            }
            for (String wanted : names) {
                if (name.equals(wanted)) {
                    return parser.getTextLength() + (parser.getTextCharacters() == null ? 0 : 1);  // decoded
                }
            }
            return 0;
        }
    }

    private static List<byte[]> bytesList(String[] names) {
        List<byte[]> list = new ArrayList<>();
        for (String name : names) {
            list.add(name.getBytes(StandardCharsets.UTF_8));
        }
        return list;
    }

    private static String quote(String text) {
        return text.length() > 120 ? text.substring(0, 120) + "..." : text;
    }
}
