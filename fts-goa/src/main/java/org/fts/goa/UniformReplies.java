package org.fts.goa;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

/**
 * Uniform replies ({@code fts.delivery=uniform}, docs/uniform-replies.md), at the origin: which of this
 * replica's own batches are known to be held by a majority of the N replicas. Every replica that delivers
 * a batch acknowledges it to the batch's origin ({@code HELD} up to the origin's batch number; FIFO, so one
 * number covers every earlier batch); the origin counts itself once it delivered the batch too. A reply is
 * released only once its batch is held by a majority: then no single crash, the sequencer's included, can
 * take the request away from every survivor, and the group layer's recovery gives it to all of them.
 */
final class UniformReplies {
    private static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);

    private final String self;
    private final int needed;
    private final Map<String, Long> held = new HashMap<>();   // replica id -> highest batch number it holds
    private final TreeMap<Long, CompletableFuture<Void>> waiting = new TreeMap<>();
    private long heldUpTo;
    private long failedUpTo;
    private RuntimeException failure;
    /** Receiver side, delivery thread only: per origin, the highest batch delivered and not yet acknowledged. */
    private final Map<org.fts.gc.MemberId, Long> toAck = new HashMap<>();

    /** @param needed replicas that must hold a batch, this one included: the majority of N */
    UniformReplies(String self, int needed) {
        this.self = self;
        this.needed = needed;
    }

    /** Completes once batch {@code seq} of this replica is held by a majority (at once if it is already). */
    synchronized CompletableFuture<Void> whenHeld(long seq) {
        if (seq <= heldUpTo) {
            return DONE;
        }
        if (seq <= failedUpTo) {
            return CompletableFuture.failedFuture(failure);   // cast before the majority was lost
        }
        return waiting.computeIfAbsent(seq, s -> new CompletableFuture<>());
    }

    /** This replica delivered its own batch {@code seq}. */
    void delivered(long seq) {
        held(self, seq);
    }

    /** Replica {@code replica} holds every batch of this replica up to {@code seq}. */
    void held(String replica, long seq) {
        List<CompletableFuture<Void>> done;
        synchronized (this) {
            held.merge(replica, seq, Math::max);
            if (held.size() < needed) {
                return;
            }
            List<Long> marks = new ArrayList<>(held.values());
            marks.sort(java.util.Comparator.reverseOrder());
            long upTo = marks.get(needed - 1);   // held by at least `needed` replicas
            if (upTo <= heldUpTo) {
                return;
            }
            heldUpTo = upTo;
            var head = waiting.headMap(upTo, true);
            done = new ArrayList<>(head.values());
            head.clear();
        }
        done.forEach(f -> f.complete(null));
    }

    /**
     * The majority is gone (minority view, or the adaptor stops): replies still held back fail, and so do
     * those of batches up to {@code castUpTo} that ask later (their execution may still be queued).
     */
    void fail(RuntimeException why, long castUpTo) {
        List<CompletableFuture<Void>> all;
        synchronized (this) {
            failedUpTo = Math.max(failedUpTo, castUpTo);
            failure = why;
            all = new ArrayList<>(waiting.values());
            waiting.clear();
        }
        all.forEach(f -> f.completeExceptionally(why));
    }

    synchronized int waiting() {
        return waiting.size();
    }

    // ------------------------------------------------------------------ receiver side (delivery thread)

    /** This replica delivered batch {@code seq} of another origin; acknowledged at the end of the burst. */
    void deliveredFrom(org.fts.gc.MemberId origin, long seq) {
        toAck.put(origin, seq);
    }

    /**
     * Sends one HELD per origin for what this replica delivered, once its delivery queue is empty: every
     * callback ends with this, so the last event of a burst, whatever its kind, sends what the burst delivered.
     */
    void flushIfIdle(org.fts.gc.GroupChannel channel) {
        if (toAck.isEmpty() || channel.pendingDeliveries() > 0) {
            return;
        }
        for (Map.Entry<org.fts.gc.MemberId, Long> e : toAck.entrySet()) {
            try {
                channel.send(e.getKey(), Direct.held(e.getValue()));
            } catch (RuntimeException ex) {
                org.slf4j.LoggerFactory.getLogger(UniformReplies.class).debug("{}: HELD to {} not sent: {}", self,
                        e.getKey(), ex.toString());
            }
        }
        toAck.clear();
    }
}
