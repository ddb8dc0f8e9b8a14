package org.fts.batching;

import java.time.Duration;

import org.fts.config.Durations;

/**
 * {@code pack}: send when the batch holds {@code pack} messages, or when its first message has waited the
 * packing interval. {@code pack} starts at 1 and moves by one step per measurement period on the throughput
 * measured over that period (messages sent per second), by the refined rule of Bartoli et al. (2003, §3):
 * after an increase (or no change), keep increasing while throughput rises and step down when it falls; after
 * a decrease, keep decreasing only while throughput rises, otherwise step back up. That is what stops a
 * transient dip from collapsing {@code pack} to 1, and {@code pack} from oscillating around a value that a
 * change of load made too high (their Figure 2). Equal measurements leave {@code pack} alone. Bounded by
 * {@code [1, maxPack]}.
 */
public final class PackingPolicy implements BatchPolicy {
    private final int maxPack;
    private final long intervalNanos;
    private final long periodNanos;
    private int pack = 1;
    private int previousPack = 1;
    private double previousThroughput = -1;
    private long periodStart = Long.MIN_VALUE;
    private long sentInPeriod;

    PackingPolicy(int maxPack, Duration interval, Duration period) {
        this.maxPack = maxPack;
        this.intervalNanos = interval.toNanos();
        this.periodNanos = period.toNanos();
    }

    public int pack() {
        return pack;
    }

    @Override
    public boolean afterCast(BatchState s, long now) {
        if (periodStart == Long.MIN_VALUE) {
            periodStart = now;
        }
        return s.pending() >= pack;
    }

    @Override
    public long nextCheck(BatchState s, long now) {
        long interval = s.pending() == 0 ? Long.MAX_VALUE : s.firstCastNanos() + intervalNanos;
        long period = periodStart == Long.MIN_VALUE ? Long.MAX_VALUE : periodStart + periodNanos;
        return Math.min(interval, period);
    }

    @Override
    public boolean onTimer(BatchState s, long now) {
        if (periodStart != Long.MIN_VALUE && now - periodStart >= periodNanos) {
            measure(sentInPeriod * 1e9 / (now - periodStart));
            periodStart = now;
            sentInPeriod = 0;
        }
        return s.pending() > 0 && now - s.firstCastNanos() >= intervalNanos;
    }

    @Override
    public void onSent(BatchState s, int messages, long now) {
        sentInPeriod += messages;
    }

    /** Applies one throughput measurement (messages/s) to the packing degree. */
    void measure(double throughput) {
        int next = pack;
        if (previousThroughput >= 0 && throughput != previousThroughput) {
            boolean rising = throughput > previousThroughput;
            boolean wasDecreasing = pack < previousPack;
            next = wasDecreasing ? (rising ? pack - 1 : pack + 1) : (rising ? pack + 1 : pack - 1);
        } else if (previousThroughput < 0) {
            next = pack + 1;   // first measurement: try packing
        }
        previousPack = pack;
        previousThroughput = throughput;
        pack = Math.max(1, Math.min(maxPack, next));
    }

    @Override
    public String describe() {
        return "pack(max=" + maxPack + ",interval=" + Durations.format(Duration.ofNanos(intervalNanos))
                + ",period=" + Durations.format(Duration.ofNanos(periodNanos)) + ")";
    }
}
