package org.fts.order;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import org.fts.gc.MemberId;

/**
 * The sequencer's watch over members a majority moved on without ({@link Sequencer#stalled}): each is probed
 * ({@link Wire.Probe}, off the ordered path and outside flow control) on every tick; one that answers is merely
 * slow and keeps its place; one that answers nothing for a whole window is one this member cannot reach, in one
 * direction or both, and is handed to the membership service for exclusion. Without it, a member cut off from
 * the sequencer alone (a bridge, a one-way link), which the others still hear, holds the sequencer's
 * flow-control credits until its heartbeats time out, and the whole group stalls that long.
 *
 * <p>Thread-safe: ticks come from a timer, answers from receiving threads.
 */
final class StallWatch {
    private final Map<MemberId, Long> probingSince = new HashMap<>();
    private final Map<MemberId, Long> answered = new HashMap<>();

    /**
     * One tick at {@code now}: probes every member of {@code stalled}, and {@code exclude}s those unanswered for
     * {@code windowNanos}. Members no longer stalled are forgotten.
     */
    void tick(long now, List<MemberId> stalled, long windowNanos, Consumer<MemberId> probe,
              Consumer<MemberId> exclude) {
        List<MemberId> out = new java.util.ArrayList<>();
        synchronized (this) {
            probingSince.keySet().retainAll(stalled);
            answered.keySet().retainAll(stalled);
            for (MemberId m : stalled) {
                Long since = probingSince.putIfAbsent(m, now);
                Long answer = answered.get(m);
                if (since != null && answer != null && answer >= since) {
                    probingSince.put(m, now);   // alive, merely slow: watch it afresh
                } else if (since != null && now - since >= windowNanos) {
                    probingSince.remove(m);     // excluded once; watched afresh if it stays
                    out.add(m);
                    continue;
                }
            }
        }
        stalled.stream().filter(m -> !out.contains(m)).forEach(probe);
        out.forEach(exclude);
    }

    /** {@code from} answered a probe. */
    synchronized void answered(MemberId from, long now) {
        answered.put(from, now);
    }
}
