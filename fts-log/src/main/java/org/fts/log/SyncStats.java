package org.fts.log;

import java.util.Arrays;

/**
 * What the log's syncs cost: how many, how many records each made durable, and how long they took (the last
 * 4,096, for the percentiles). Thread-safe.
 */
public final class SyncStats {
    private static final int WINDOW = 4096;
    private final long[] recent = new long[WINDOW];
    private long syncs;
    private long records;

    synchronized void synced(long recordsMadeDurable, long tookNanos) {
        recent[(int) (syncs % WINDOW)] = tookNanos;
        syncs++;
        records += recordsMadeDurable;
    }

    public synchronized long syncs() {
        return syncs;
    }

    /** Records made durable per sync, on average. */
    public synchronized double recordsPerSync() {
        return syncs == 0 ? 0 : (double) records / syncs;
    }

    /** The {@code p}-th percentile (0..100) of the last syncs' durations, in nanoseconds; 0 without any. */
    public synchronized long percentileNanos(double p) {
        int n = (int) Math.min(syncs, WINDOW);
        if (n == 0) {
            return 0;
        }
        long[] s = Arrays.copyOf(recent, n);
        Arrays.sort(s);
        return s[(int) Math.min(n - 1, Math.max(0, Math.ceil(p / 100 * n) - 1))];
    }
}
