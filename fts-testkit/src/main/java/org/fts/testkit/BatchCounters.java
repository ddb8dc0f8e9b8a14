package org.fts.testkit;

/**
 * A replica's cumulative batching counters, read over JMX from its {@code org.fts:type=Batching} MBean: batches and
 * messages sent, and count and sum of the batching delays and cast latencies recorded (nanoseconds). Read one by one,
 * so a snapshot taken under load may be off by the few casts in flight; a load campaign takes differences over its
 * measured window.
 */
public record BatchCounters(long batches, long messages, long delayCount, long delaySumNanos, long castCount,
                            long castSumNanos) {
    public static final BatchCounters ZERO = new BatchCounters(0, 0, 0, 0, 0, 0);

    /** {@code this - earlier}, field by field. */
    public BatchCounters minus(BatchCounters earlier) {
        return new BatchCounters(batches - earlier.batches, messages - earlier.messages,
                delayCount - earlier.delayCount, delaySumNanos - earlier.delaySumNanos,
                castCount - earlier.castCount, castSumNanos - earlier.castSumNanos);
    }

    public BatchCounters plus(BatchCounters other) {
        return new BatchCounters(batches + other.batches, messages + other.messages,
                delayCount + other.delayCount, delaySumNanos + other.delaySumNanos,
                castCount + other.castCount, castSumNanos + other.castSumNanos);
    }
}
