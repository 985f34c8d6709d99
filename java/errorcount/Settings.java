package errorcount;

import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * The log-format settings the classifier is built with, read by their names in
 * errorcount/config/settings.py (LOG_FORMAT, ERROR_LEVELS, ...). Python validates and defaults them (one
 * place: settings.py and errorcount/config/load.py) and passes every one as text; each class here reads
 * the settings it uses, so a missing or misspelt name fails when the classifier is built.
 */
final class Settings {
    private final Map<String, String> values;

    Settings(Map<String, String> values) {
        this.values = values;
    }

    String text(String name) {
        String value = values.get(name);
        if (value == null) {
            throw new IllegalArgumentException("the classifier needs the setting " + name + " (errorcount/config/settings.py), "
                    + "given only " + values.keySet());
        }
        return value;
    }

    int number(String name) {
        try {
            return Integer.parseInt(text(name).trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("setting " + name + " must be a whole number, got '" + text(name) + "'");
        }
    }

    /** A comma-separated list, each entry trimmed, as UTF-8 (upper-cased in ASCII when asked). */
    byte[][] names(String name, boolean upperAscii) {
        String[] parts = text(name).split(",", -1);
        byte[][] names = new byte[parts.length][];
        for (int i = 0; i < parts.length; i++) {
            byte[] bytes = parts[i].trim().getBytes(StandardCharsets.UTF_8);
            if (upperAscii) {
                for (int j = 0; j < bytes.length; j++) {
                    bytes[j] = bytes[j] >= 'a' && bytes[j] <= 'z' ? (byte) (bytes[j] - 32) : bytes[j];
                }
            }
            names[i] = bytes;
        }
        return names;
    }

    /** A field name, or null when the setting is empty (off). */
    byte[] optional(String name) {
        String value = text(name);
        return value.isEmpty() ? null : value.getBytes(StandardCharsets.UTF_8);
    }
}
