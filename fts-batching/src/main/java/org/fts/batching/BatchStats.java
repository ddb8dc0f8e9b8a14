package org.fts.batching;

import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.util.Locale;
import java.util.concurrent.atomic.LongAdder;

/**
 * The batching metrics, named as in the paper, declared once here and exposed through JMX
 * ({@link BatchStatsMBean}) and in {@link #dump()}: batches sent; batch length; batching delay (cast → batch
 * sent); cast latency (cast → the batch delivered back at this member); the batch-length / cast-latency ratio;
 * process CPU time per message.
 */
public final class BatchStats implements BatchStatsMBean {
    private final String policy;
    private final LongAdder batches = new LongAdder();
    private final LongAdder messages = new LongAdder();
    private final Histogram batchLength = new Histogram();
    private final Histogram batchingDelayNanos = new Histogram();
    private final Histogram castLatencyNanos = new Histogram();
    private final long cpuStart = processCpuNanos();

    public BatchStats(String policy) {
        this.policy = policy;
    }

    void sent(int length) {
        batches.increment();
        messages.add(length);
        batchLength.record(length);
    }

    void batchingDelay(long nanos) {
        batchingDelayNanos.record(nanos);
    }

    void castLatency(long nanos) {
        castLatencyNanos.record(nanos);
    }

    @Override
    public String getPolicy() {
        return policy;
    }

    @Override
    public long getBatchesSent() {
        return batches.sum();
    }

    @Override
    public long getMessagesSent() {
        return messages.sum();
    }

    @Override
    public double getBatchLengthMean() {
        return batchLength.mean();
    }

    @Override
    public long getBatchLengthP50() {
        return batchLength.percentile(0.5);
    }

    @Override
    public long getBatchLengthP99() {
        return batchLength.percentile(0.99);
    }

    @Override
    public long getBatchLengthMax() {
        return batchLength.max();
    }

    @Override
    public double getBatchingDelayMeanMicros() {
        return batchingDelayNanos.mean() / 1e3;
    }

    @Override
    public double getBatchingDelayP50Micros() {
        return batchingDelayNanos.percentile(0.5) / 1e3;
    }

    @Override
    public double getBatchingDelayP99Micros() {
        return batchingDelayNanos.percentile(0.99) / 1e3;
    }

    @Override
    public double getCastLatencyMeanMicros() {
        return castLatencyNanos.mean() / 1e3;
    }

    @Override
    public double getCastLatencyP50Micros() {
        return castLatencyNanos.percentile(0.5) / 1e3;
    }

    @Override
    public double getCastLatencyP99Micros() {
        return castLatencyNanos.percentile(0.99) / 1e3;
    }

    @Override
    public double getBatchLengthPerCastLatencyMs() {
        double latMs = castLatencyNanos.mean() / 1e6;
        return latMs == 0 ? 0 : batchLength.mean() / latMs;
    }

    @Override
    public double getCpuMicrosPerMessage() {
        long m = messages.sum();
        return m == 0 ? 0 : (processCpuNanos() - cpuStart) / 1e3 / m;
    }

    /** The cumulative counters, from which a load campaign takes differences over its measured window. */
    public Counters counters() {
        return new Counters(batches.sum(), messages.sum(), batchingDelayNanos.count(), batchingDelayNanos.sum(),
                castLatencyNanos.count(), castLatencyNanos.sum());
    }

    /**
     * Cumulative batching counters: batches and messages sent, and count and sum of the batching delays and
     * cast latencies recorded (nanoseconds). Read one by one, so a snapshot taken under load may be off by
     * the few casts in flight.
     */
    public record Counters(long batches, long messages, long delayCount, long delaySumNanos, long castCount,
                           long castSumNanos) {
        public static final Counters ZERO = new Counters(0, 0, 0, 0, 0, 0);

        /** {@code this - earlier}, field by field. */
        public Counters minus(Counters earlier) {
            return new Counters(batches - earlier.batches, messages - earlier.messages,
                    delayCount - earlier.delayCount, delaySumNanos - earlier.delaySumNanos,
                    castCount - earlier.castCount, castSumNanos - earlier.castSumNanos);
        }

        public Counters plus(Counters other) {
            return new Counters(batches + other.batches, messages + other.messages,
                    delayCount + other.delayCount, delaySumNanos + other.delaySumNanos,
                    castCount + other.castCount, castSumNanos + other.castSumNanos);
        }

        /** {@code batches=… messages=… delay_n=… delay_sum_ns=… cast_n=… cast_sum_ns=…}; see {@link #parse}. */
        public String format() {
            return "batches=" + batches + " messages=" + messages + " delay_n=" + delayCount + " delay_sum_ns="
                    + delaySumNanos + " cast_n=" + castCount + " cast_sum_ns=" + castSumNanos;
        }

        /** Reads {@link #format()}'s output (fields in any order; missing ones are 0). */
        public static Counters parse(String text) {
            java.util.Map<String, Long> f = new java.util.HashMap<>();
            for (String kv : text.trim().split("\\s+")) {
                int eq = kv.indexOf('=');
                if (eq > 0) {
                    f.put(kv.substring(0, eq), Long.parseLong(kv.substring(eq + 1)));
                }
            }
            return new Counters(f.getOrDefault("batches", 0L), f.getOrDefault("messages", 0L),
                    f.getOrDefault("delay_n", 0L), f.getOrDefault("delay_sum_ns", 0L),
                    f.getOrDefault("cast_n", 0L), f.getOrDefault("cast_sum_ns", 0L));
        }
    }

    /** One line with every metric, for logs and the stats dump at shutdown. */
    public String dump() {
        return String.format(Locale.ROOT, "batching %s: batches=%d messages=%d batch_len mean=%.2f p50=%d p99=%d max=%d"
                        + " batching_delay_us mean=%.1f p50=%.1f p99=%.1f cast_latency_us mean=%.1f p50=%.1f p99=%.1f"
                        + " len_per_latency_ms=%.3f cpu_us_per_msg=%.1f",
                policy, getBatchesSent(), getMessagesSent(), getBatchLengthMean(), getBatchLengthP50(),
                getBatchLengthP99(), getBatchLengthMax(), getBatchingDelayMeanMicros(), getBatchingDelayP50Micros(),
                getBatchingDelayP99Micros(), getCastLatencyMeanMicros(), getCastLatencyP50Micros(),
                getCastLatencyP99Micros(), getBatchLengthPerCastLatencyMs(), getCpuMicrosPerMessage());
    }

    private static long processCpuNanos() {
        OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.OperatingSystemMXBean sun) {
            return sun.getProcessCpuTime();
        }
        return 0;
    }
}
