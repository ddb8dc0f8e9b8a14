package org.fts.batching;

import org.fts.config.Counter;

/** The JMX view of {@link BatchStats} ({@code org.fts:type=Batching,member=...}). Times in microseconds. */
public interface BatchStatsMBean {
    String getPolicy();

    @Counter
    long getBatchesSent();

    @Counter
    long getMessagesSent();

    double getBatchLengthMean();

    long getBatchLengthP50();

    long getBatchLengthP99();

    long getBatchLengthMax();

    double getBatchingDelayMeanMicros();

    double getBatchingDelayP50Micros();

    double getBatchingDelayP99Micros();

    double getCastLatencyMeanMicros();

    double getCastLatencyP50Micros();

    double getCastLatencyP99Micros();

    /** The paper's ratio: mean batch length over mean cast latency (messages per millisecond). */
    double getBatchLengthPerCastLatencyMs();

    double getCpuMicrosPerMessage();

    /** Batching delays recorded since the replica started (cumulative: a monitor takes differences). */
    @Counter
    long getBatchingDelayCount();

    /** The sum of the batching delays recorded, in nanoseconds (cumulative). */
    @Counter
    long getBatchingDelaySumNanos();

    /** Cast latencies recorded since the replica started (cumulative). */
    @Counter
    long getCastLatencyCount();

    /** The sum of the cast latencies recorded, in nanoseconds (cumulative). */
    @Counter
    long getCastLatencySumNanos();
}
