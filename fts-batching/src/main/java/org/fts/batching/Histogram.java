package org.fts.batching;

/**
 * A compact histogram of non-negative longs: log-linear buckets (16 per power of two), so percentiles are
 * within about 6% of the true value, at constant memory. Thread-safe.
 */
public final class Histogram {
    private static final int SUB = 16;
    private final long[] buckets = new long[64 * SUB];
    private long count;
    private long sum;
    private long max;

    public synchronized void record(long v) {
        long x = Math.max(0, v);
        buckets[index(x)]++;
        count++;
        sum += x;
        max = Math.max(max, x);
    }

    private static int index(long v) {
        if (v < SUB) {
            return (int) v;
        }
        int exp = 63 - Long.numberOfLeadingZeros(v);   // >= 4
        int mant = (int) ((v >>> (exp - 4)) & (SUB - 1));
        return (exp - 3) * SUB + mant;
    }

    private static long lowerBound(int index) {
        if (index < SUB) {
            return index;
        }
        int exp = index / SUB + 3;
        int mant = index % SUB;
        return ((long) (SUB + mant)) << (exp - 4);
    }

    /**
     * One consistent reading for a Prometheus histogram: per bound in {@code bounds} (ascending), how many values are
     * at most it, counting whole cells only (a cell that straddles a bound is counted at the next: a bound's count may
     * miss values up to about 6% below it); and the count and sum of every value.
     */
    public synchronized Cumulative cumulative(long[] bounds) {
        long[] atOrBelow = new long[bounds.length];
        long n = 0;
        int cell = 0;
        for (int b = 0; b < bounds.length; b++) {
            while (cell < buckets.length - 1 && lowerBound(cell + 1) - 1 <= bounds[b]) {
                n += buckets[cell++];
            }
            atOrBelow[b] = n;
        }
        return new Cumulative(atOrBelow, count, sum);
    }

    /** What {@link #cumulative} read: counts at or below each bound, and the count and sum of every value. */
    public record Cumulative(long[] atOrBelow, long count, long sum) {
    }

    public synchronized long count() {
        return count;
    }

    public synchronized long sum() {
        return sum;
    }

    public synchronized double mean() {
        return count == 0 ? 0 : (double) sum / count;
    }

    public synchronized long max() {
        return max;
    }

    /** The value at quantile {@code q} (0..1), as the lower bound of its bucket; 0 when empty. */
    public synchronized long percentile(double q) {
        if (count == 0) {
            return 0;
        }
        long rank = (long) Math.ceil(q * count);
        long seen = 0;
        for (int i = 0; i < buckets.length; i++) {
            seen += buckets[i];
            if (seen >= Math.max(1, rank)) {
                return Math.min(max, lowerBound(i));
            }
        }
        return max;
    }
}
