package org.fts.config;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Properties;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * One configuration key: its name (always under {@code fts.}), type, default, unit, validation and a
 * one-line description. Every FTS setting is declared exactly once as a {@code ConfigKey} constant; the
 * reference table in {@code docs/configuration.md} is checked against these declarations by a test.
 *
 * <p>Values are read from ORB-style {@link Properties} (ORB.init properties, {@code -D} system properties,
 * or a {@code jacorb.properties} file): {@link #get(Properties)} returns the typed value, or the default when
 * the key is absent, and throws a {@link ConfigException} naming the key when the value does not parse or
 * fails validation. Keys never fall back silently on a bad value.
 *
 * @param <T> the value type
 */
public final class ConfigKey<T> {
    private final String name;
    private final T defaultValue;
    private final String unit;
    private final String constraint;
    private final String description;
    private final Function<String, T> parser;
    private final Predicate<T> valid;
    private final Function<T, String> formatter;

    private ConfigKey(String name, T defaultValue, String unit, String constraint, String description,
                      Function<String, T> parser, Predicate<T> valid, Function<T, String> formatter) {
        if (!name.startsWith("fts.")) {
            throw new IllegalArgumentException("FTS keys live under fts.: " + name);
        }
        this.name = name;
        this.defaultValue = defaultValue;
        this.unit = unit;
        this.constraint = constraint;
        this.description = description;
        this.parser = parser;
        this.valid = valid;
        this.formatter = formatter;
        if (defaultValue != null && !valid.test(defaultValue)) {
            throw new IllegalArgumentException("default of " + name + " violates " + constraint);
        }
    }

    /** A free-form string that may be left unset: its value is then the empty string. */
    public static ConfigKey<String> optionalString(String name, String description) {
        return new ConfigKey<>(name, "", "-", "any", description, String::trim, s -> true, s -> s);
    }

    /** A free-form string; {@code defaultValue} null means the key is required. */
    public static ConfigKey<String> string(String name, String defaultValue, String description) {
        return new ConfigKey<>(name, defaultValue, "-", "non-empty", description,
                String::trim, s -> !s.isEmpty(), s -> s);
    }

    /**
     * A directory given as an absolute path, or left unset (empty: the caller's default location). A relative path
     * is refused: it would depend on the working directory, which under a service manager is {@code /}.
     */
    public static ConfigKey<String> absolutePath(String name, String description) {
        return absolute(name, "absolute, or empty for the default location", description);
    }

    /** A file given as an absolute path, or left unset (empty: none; what that means, the description says). */
    public static ConfigKey<String> optionalAbsoluteFile(String name, String description) {
        return absolute(name, "absolute, or empty for none", description);
    }

    private static ConfigKey<String> absolute(String name, String allowed, String description) {
        return new ConfigKey<>(name, "", "path", allowed, description,
                String::trim, s -> s.isEmpty() || java.nio.file.Path.of(s).isAbsolute(), s -> s);
    }

    /** One of a fixed set of short aliases (compared case-insensitively, stored lower-case). */
    public static ConfigKey<String> choice(String name, String defaultValue, List<String> allowed,
                                           String description) {
        return new ConfigKey<>(name, defaultValue, "alias", "one of " + String.join(", ", allowed), description,
                s -> s.trim().toLowerCase(Locale.ROOT), allowed::contains, s -> s);
    }

    /** An integer in {@code [min, max]}. */
    public static ConfigKey<Integer> integer(String name, int defaultValue, int min, int max, String unit,
                                             String description) {
        return new ConfigKey<>(name, defaultValue, unit, range(min, max), description,
                s -> Integer.valueOf(s.trim()), v -> v >= min && v <= max, String::valueOf);
    }

    /** A long in {@code [min, max]}. */
    public static ConfigKey<Long> longValue(String name, long defaultValue, long min, long max, String unit,
                                            String description) {
        return new ConfigKey<>(name, defaultValue, unit, range(min, max), description,
                s -> Long.valueOf(s.trim()), v -> v >= min && v <= max, String::valueOf);
    }

    /** {@code true} or {@code false}, nothing else. */
    public static ConfigKey<Boolean> bool(String name, boolean defaultValue, String description) {
        return new ConfigKey<>(name, defaultValue, "boolean", "true or false", description,
                ConfigKey::parseBoolean, v -> true, String::valueOf);
    }

    /** A duration with a unit suffix ({@link Durations}), in {@code [min, max]}. */
    public static ConfigKey<Duration> duration(String name, Duration defaultValue, Duration min, Duration max,
                                               String description) {
        return new ConfigKey<>(name, defaultValue, "duration",
                Durations.format(min) + " .. " + Durations.format(max), description,
                Durations::parse, v -> v.compareTo(min) >= 0 && v.compareTo(max) <= 0, Durations::format);
    }

    /** A comma-separated list of non-empty strings; {@code defaultValue} null means required. */
    public static ConfigKey<List<String>> list(String name, List<String> defaultValue, String description) {
        return new ConfigKey<>(name, defaultValue, "list", "comma-separated, non-empty entries", description,
                s -> Arrays.stream(s.split(",")).map(String::trim).toList(),
                l -> l.stream().noneMatch(String::isEmpty), l -> String.join(",", l));
    }

    private static String range(long min, long max) {
        return min + " .. " + (max == Integer.MAX_VALUE || max == Long.MAX_VALUE ? "max" : String.valueOf(max));
    }

    private static Boolean parseBoolean(String s) {
        String t = s.trim().toLowerCase(Locale.ROOT);
        if (t.equals("true")) {
            return true;
        }
        if (t.equals("false")) {
            return false;
        }
        throw new IllegalArgumentException("expected true or false");
    }

    /**
     * The typed value of this key in {@code props} (or its default).
     *
     * @throws ConfigException naming this key if the value is missing and required, malformed or invalid
     */
    public T get(Properties props) {
        String raw = props.getProperty(name);
        if (raw == null) {
            if (defaultValue == null) {
                throw new ConfigException(name, "is required (" + description + ")");
            }
            return defaultValue;
        }
        T value;
        try {
            value = parser.apply(raw);
        } catch (RuntimeException e) {
            throw new ConfigException(name, "has malformed value '" + raw + "': " + e.getMessage()
                    + " (expected " + unit + ", " + constraint + ")");
        }
        if (!valid.test(value)) {
            throw new ConfigException(name, "has value '" + raw + "' outside " + constraint);
        }
        return value;
    }

    /** Whether {@code props} sets this key explicitly. */
    public boolean isSet(Properties props) {
        return props.getProperty(name) != null;
    }

    /** The value formatted as it would be written in a properties file. */
    public String format(T value) {
        return value == null ? "(required)" : formatter.apply(value);
    }

    public String name() {
        return name;
    }

    /** The default, or null when the key is required. */
    public T defaultValue() {
        return defaultValue;
    }

    public String defaultText() {
        return format(defaultValue);
    }

    public String unit() {
        return unit;
    }

    public String constraint() {
        return constraint;
    }

    public String description() {
        return description;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ConfigKey<?> k && k.name.equals(name);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name);
    }

    @Override
    public String toString() {
        return name;
    }
}
