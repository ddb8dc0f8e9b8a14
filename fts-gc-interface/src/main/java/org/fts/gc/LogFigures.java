package org.fts.gc;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * A member's log figures ({@code fts.durability=log}), cumulative since it started: syncs, entries made durable per
 * sync, the p50 and p99 sync time, and the log's size on disk (-1 if a compaction removed a file while it was
 * counted). {@link GroupChannel#logFigures()}; over JMX as the replica's {@code Log*} attributes.
 */
public record LogFigures(long syncs, double recordsPerSync, long p50Micros, long p99Micros, long diskBytes) {
    /** {@code syncs=N records_per_sync=R p50_us=P p99_us=Q disk_bytes=B}, as fts status shows it; see {@link #parse}. */
    public String format() {
        return String.format(Locale.ROOT, "syncs=%d records_per_sync=%.1f p50_us=%d p99_us=%d disk_bytes=%d", syncs,
                recordsPerSync, p50Micros, p99Micros, diskBytes);
    }

    /** The figures {@link #format} wrote (the test kit's harness replicas answer with that line). */
    public static LogFigures parse(String text) {
        Map<String, String> f = new HashMap<>();
        for (String kv : text.trim().split("\\s+")) {
            int eq = kv.indexOf('=');
            if (eq > 0) {
                f.put(kv.substring(0, eq), kv.substring(eq + 1));
            }
        }
        try {
            return new LogFigures(Long.parseLong(f.get("syncs")), Double.parseDouble(f.get("records_per_sync")),
                    Long.parseLong(f.get("p50_us")), Long.parseLong(f.get("p99_us")),
                    Long.parseLong(f.get("disk_bytes")));
        } catch (NullPointerException | NumberFormatException e) {
            throw new IllegalArgumentException("not log figures: " + text, e);
        }
    }
}
