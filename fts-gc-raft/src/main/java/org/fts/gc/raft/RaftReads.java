package org.fts.gc.raft;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.fts.gc.ReadBarrier;
import org.fts.gc.internal.DeliveryPump;
import org.fts.gc.internal.ReadWaiters;

/**
 * Read barriers on the raft binding (docs/reads.md): a read-index entry ({@link Ledger#READ_INDEX}) is appended
 * through the leader, which applies it once a majority holds it (so it still led after the request arrived) and it
 * applied everything committed before; it answers how many entries it had applied. This member
 * makes its barriers ready once it applied as many. One request in flight per member: barriers asked for
 * meanwhile share the next. A request that fails or takes over {@link #TIMEOUT_MILLIS} (no leader, a minority), and a
 * confirmed barrier not reached within it, is refused: the application orders its read.
 */
final class RaftReads {
    static final long TIMEOUT_MILLIS = 1_000;

    /** Appends the read-index entry; the future completes with the leader's answer. */
    interface Ask {
        CompletableFuture<byte[]> readIndex() throws Exception;
    }

    private final DeliveryPump pump;
    private final Ask ask;
    private final List<ReadBarrier> waiting = new ArrayList<>();
    private final ReadWaiters confirmed = new ReadWaiters();
    private boolean inFlight;
    private long applied;
    /** Barriers whose index the leader confirmed, and barriers refused (the order's figures, RaftOrderStats). */
    private final java.util.concurrent.atomic.AtomicLong confirmedCount = new java.util.concurrent.atomic.AtomicLong();
    private final java.util.concurrent.atomic.AtomicLong refusedCount = new java.util.concurrent.atomic.AtomicLong();

    RaftReads(DeliveryPump pump, Ask ask) {
        this.pump = pump;
        this.ask = ask;
    }

    void request(ReadBarrier barrier) {
        List<ReadBarrier> batch;
        synchronized (this) {
            waiting.add(barrier);
            batch = next();
        }
        send(batch);
    }

    /** This member applied {@code position} entries (on jgroups-raft's thread, after handing the last to the pump). */
    synchronized void applied(long position) {
        applied = position;
        if (!confirmed.isEmpty()) {
            confirmed.release(position, pump);
        }
    }

    /** The timer: confirmed barriers whose position did not come within the timeout are refused. */
    void expire(long nowNanos) {
        List<ReadBarrier> late;
        synchronized (this) {
            late = confirmed.expire(nowNanos);
        }
        refuse(late, "this member did not apply the confirmed read index in time");
    }

    private List<ReadBarrier> next() {
        if (inFlight || waiting.isEmpty()) {
            return null;
        }
        inFlight = true;
        List<ReadBarrier> batch = new ArrayList<>(waiting);
        waiting.clear();
        return batch;
    }

    private void send(List<ReadBarrier> batch) {
        if (batch == null) {
            return;
        }
        CompletableFuture<byte[]> f;
        try {
            f = ask.readIndex();
        } catch (Exception e) {
            answered(batch, null, e);
            return;
        }
        f.orTimeout(TIMEOUT_MILLIS, TimeUnit.MILLISECONDS).whenComplete((bytes, failure) -> answered(batch, bytes, failure));
    }

    private void answered(List<ReadBarrier> batch, byte[] bytes, Throwable failure) {
        long position = failure == null && bytes != null && bytes.length == 8 ? ByteBuffer.wrap(bytes).getLong() : -1;
        List<ReadBarrier> next;
        synchronized (this) {
            inFlight = false;
            if (position >= 0) {
                confirmedCount.addAndGet(batch.size());
                confirmed.add(position, applied, batch,
                        System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(TIMEOUT_MILLIS), pump);
            }
            next = next();
        }
        if (position < 0) {
            refuse(batch, "the leader did not confirm a read index: " + (failure == null ? "no answer" : failure));
        }
        send(next);
    }

    long confirmedCount() {
        return confirmedCount.get();
    }

    long refusedCount() {
        return refusedCount.get();
    }

    private void refuse(List<ReadBarrier> barriers, String why) {
        if (!barriers.isEmpty()) {
            refusedCount.addAndGet(barriers.size());
            pump.task(() -> barriers.forEach(b -> b.refused(why)));
        }
    }
}
