package org.fts.gc;

import java.util.Locale;

/**
 * A member's log figures ({@code fts.durability=log}), cumulative since it started: syncs, entries made durable per
 * sync, the p50 and p99 sync time, and the log's size on disk (-1 if a compaction removed a file while it was
 * counted). {@link GroupChannel.Diagnostics#logFigures()}; over JMX as the replica's {@code Log*} attributes.
 */
public record LogFigures(long syncs, double recordsPerSync, long p50Micros, long p99Micros, long diskBytes) {
    /** {@code syncs=N records_per_sync=R p50_us=P p99_us=Q disk_bytes=B}, as fts status shows it. */
    public String format() {
        return String.format(Locale.ROOT, "syncs=%d records_per_sync=%.1f p50_us=%d p99_us=%d disk_bytes=%d", syncs,
                recordsPerSync, p50Micros, p99Micros, diskBytes);
    }
}
