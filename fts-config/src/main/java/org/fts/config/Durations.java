package org.fts.config;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.Locale;

/**
 * Durations as written in FTS configuration: a decimal number and a unit, {@code ns}, {@code us} (or
 * {@code µs}), {@code ms}, {@code s}, {@code m}; for example {@code 250us}, {@code 1.5s}, {@code 0}. A
 * bare number other than 0 is rejected: the unit is never guessed.
 */
public final class Durations {
    private Durations() {
    }

    public static Duration parse(String text) {
        String s = text.trim().toLowerCase(Locale.ROOT);
        if (s.equals("0")) {
            return Duration.ZERO;
        }
        int i = 0;
        while (i < s.length() && (Character.isDigit(s.charAt(i)) || s.charAt(i) == '.')) {
            i++;
        }
        if (i == 0 || i == s.length()) {
            throw new IllegalArgumentException("a duration needs a number and a unit (ns, us, ms, s, m): " + text);
        }
        BigDecimal number = new BigDecimal(s.substring(0, i));
        long nanosPerUnit = switch (s.substring(i).trim()) {
            case "ns" -> 1L;
            case "us", "µs" -> 1_000L;
            case "ms" -> 1_000_000L;
            case "s" -> 1_000_000_000L;
            case "m", "min" -> 60_000_000_000L;
            default -> throw new IllegalArgumentException("unknown duration unit in '" + text + "'");
        };
        return Duration.ofNanos(number.multiply(BigDecimal.valueOf(nanosPerUnit)).longValueExact());
    }

    /** The shortest exact rendering, e.g. {@code 250us}, {@code 2s}. */
    public static String format(Duration d) {
        long n = d.toNanos();
        if (n == 0) {
            return "0";
        }
        if (n % 60_000_000_000L == 0) {
            return n / 60_000_000_000L + "m";
        }
        if (n % 1_000_000_000L == 0) {
            return n / 1_000_000_000L + "s";
        }
        if (n % 1_000_000L == 0) {
            return n / 1_000_000L + "ms";
        }
        if (n % 1_000L == 0) {
            return n / 1_000L + "us";
        }
        return n + "ns";
    }
}
