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

    @Override
    public long getBatchingDelayCount() {
        return batchingDelayNanos.count();
    }

    @Override
    public long getBatchingDelaySumNanos() {
        return batchingDelayNanos.sum();
    }

    /**
     * The cast latency (a message's cast to its delivery here, in nanoseconds) as cumulative counts at or below each
     * of {@code boundsNanos}, for a Prometheus histogram ({@link Histogram#cumulative}).
     */
    public Histogram.Cumulative castLatencyHistogram(long[] boundsNanos) {
        return castLatencyNanos.cumulative(boundsNanos);
    }

    @Override
    public long getCastLatencyCount() {
        return castLatencyNanos.count();
    }

    @Override
    public long getCastLatencySumNanos() {
        return castLatencyNanos.sum();
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
