package org.fts.gc.raft;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.fts.gc.ReadBarrier;
import org.fts.gc.internal.DeliveryPump;

/**
 * Read barriers on the raft binding (docs/reads.md): jgroups-raft's read-only request carries a read-index command
 * ({@link Ledger#READ_INDEX}) to the leader, which applies it once a majority confirmed its leadership after the
 * request arrived and it applied everything committed before; it answers how many entries it applied. This member
 * makes its barriers ready once it applied as many. One request in flight per member: barriers asked for
 * meanwhile share the next. A request that fails or takes over {@link #TIMEOUT_MILLIS} (no leader, a minority), and a
 * confirmed barrier not reached within it, is refused: the application orders its read.
 */
final class RaftReads {
    static final long TIMEOUT_MILLIS = 1_000;

    /** Sends the read-index command as a read-only request. */
    interface Ask {
        CompletableFuture<byte[]> readIndex() throws Exception;
    }

    private record Waiter(ReadBarrier barrier, long deadline) {
    }

    private final DeliveryPump pump;
    private final Ask ask;
    private final List<ReadBarrier> waiting = new ArrayList<>();
    private final TreeMap<Long, List<Waiter>> confirmed = new TreeMap<>();
    private boolean inFlight;
    private long applied;

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
        while (!confirmed.isEmpty() && confirmed.firstKey() <= position) {
            List<Waiter> ready = confirmed.pollFirstEntry().getValue();
            pump.task(() -> ready.forEach(w -> w.barrier().ready()));
        }
    }

    /** The timer: confirmed barriers whose position did not come within the timeout are refused. */
    void expire(long nowNanos) {
        List<ReadBarrier> late = new ArrayList<>();
        synchronized (this) {
            var it = confirmed.entrySet().iterator();
            while (it.hasNext()) {
                Map.Entry<Long, List<Waiter>> e = it.next();
                e.getValue().removeIf(w -> nowNanos - w.deadline() >= 0 && late.add(w.barrier()));
                if (e.getValue().isEmpty()) {
                    it.remove();
                }
            }
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
            if (position >= 0 && position <= applied) {
                pump.task(() -> batch.forEach(ReadBarrier::ready));
            } else if (position >= 0) {
                long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(TIMEOUT_MILLIS);
                List<Waiter> at = confirmed.computeIfAbsent(position, p -> new ArrayList<>());
                batch.forEach(b -> at.add(new Waiter(b, deadline)));
            }
            next = next();
        }
        if (position < 0) {
            refuse(batch, "the leader did not confirm a read index: " + (failure == null ? "no answer" : failure));
        }
        send(next);
    }

    private void refuse(List<ReadBarrier> barriers, String why) {
        if (!barriers.isEmpty()) {
            pump.task(() -> barriers.forEach(b -> b.refused(why)));
        }
    }
}
