package org.fts.goa.intake;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

import org.fts.batching.Batcher;
import org.omg.CORBA.CompletionStatus;
import org.omg.CORBA.IMP_LIMIT;

/**
 * Stages 5-6 at the replica that received a request: it passes the batching doorway, is cast into the current
 * batch (the {@link Batcher} sends batches into the total order), and its foreground thread waits for this
 * replica to execute it ({@link #answered}). A retry of a request still in flight here joins the first
 * attempt's wait instead of being cast again.
 */
public final class CastPath {
    /**
     * A request thread's passage through the doorway (the long doorway: from the request's arrival to its
     * cast). Every ticket ends exactly once: in {@link #cast}, or in {@link #cancel()} when the request fails
     * before its cast.
     */
    static final class Ticket {
        private final Batcher batcher;
        private boolean open;

        private Ticket(Batcher batcher, boolean entered) {
            this.batcher = batcher;
            this.open = entered;
        }

        /** The request will not be cast: its thread leaves the doorway. */
        void cancel() {
            if (open) {
                open = false;
                batcher.leave();
            }
        }

        /** Hands {@code message} to the batcher: the doorway's exit when this ticket entered it. */
        private void exit(byte[] message) {
            if (open) {
                open = false;
                batcher.exit(message);
            } else {
                batcher.cast(message);
            }
        }
    }

    /** A request this replica cast and waits for, and how many foreground threads wait (retries join). */
    private static final class Pending {
        final CompletableFuture<Reply> reply = new CompletableFuture<>();
        int waiters = 1;   // guarded by the map's compute
    }

    private final Batcher batcher;
    private final boolean longDoorway;
    private final Map<RequestId, Pending> pending = new ConcurrentHashMap<>();

    /** @param longDoorway whether requests enter the doorway on arrival ({@code fts.batching.doorway=long}) */
    public CastPath(Batcher batcher, boolean longDoorway) {
        this.batcher = batcher;
        this.longDoorway = longDoorway;
    }

    /** Stage 5 begins: with the long doorway, the request's thread enters it now. */
    Ticket enter() {
        if (longDoorway) {
            batcher.enter();
        }
        return new Ticket(batcher, longDoorway);
    }

    /** A ticket that never entered the doorway: its cast goes straight into the current batch. */
    public Ticket pastTheDoorway() {
        return new Ticket(batcher, false);
    }

    /**
     * Casts {@code r} into the current batch; the future completes with its reply once this replica executed
     * it. A oneway request completes at once. A request that has no wire form (a string over 65535 bytes)
     * fails with {@code IMP_LIMIT}; its ticket ends either way.
     */
    public CompletableFuture<Reply> cast(Request r, Ticket ticket) {
        byte[] message;
        try {
            message = Cast.encode(new Cast.Invocation(r));
        } catch (IllegalArgumentException e) {
            ticket.cancel();
            throw new IMP_LIMIT("FTS: the request cannot be cast: " + e.getMessage(), 0,
                    CompletionStatus.COMPLETED_NO);
        }
        if (!r.responseExpected()) {
            ticket.exit(message);
            return CompletableFuture.completedFuture(Reply.NONE);
        }
        Pending mine = new Pending();
        Pending p = pending.compute(r.id(), (id, old) -> {
            if (old == null) {
                return mine;
            }
            old.waiters++;
            return old;
        });
        if (p != mine) {
            ticket.cancel();   // a retry of a request in flight from this replica: wait for that one execution
            return p.reply;
        }
        try {
            ticket.exit(message);
        } catch (RuntimeException e) {
            pending.remove(r.id(), mine);
            throw e;
        }
        return mine.reply;
    }

    /**
     * An event loop's read burst holds the doorway ({@code true}) or lets it go: its requests are cast while it
     * is held, so an adaptive doorway sends them as one batch when the burst ends.
     */
    public void holdDoorway(boolean hold) {
        if (hold) {
            batcher.enter();
        } else {
            batcher.leave();
        }
    }

    /** Casts the GOA's own message into the total order (no doorway, no reply). */
    public void castControl(Cast c) {
        batcher.cast(Cast.encode(c));
    }

    /** Stage 10 begins: this replica executed {@code id}; its waiting threads get {@code reply}. */
    public void answered(RequestId id, Reply reply) {
        Pending p = pending.remove(id);
        if (p != null) {
            p.reply.complete(reply);
        }
    }

    /** This replica will not execute {@code id} (its state is being replaced): its waiters learn why. */
    public void notExecuted(RequestId id, RuntimeException why) {
        Pending p = pending.remove(id);
        if (p != null) {
            p.reply.completeExceptionally(why);
        }
    }

    /** Requests cast from this replica and waiting for their execution here. */
    public int inFlight() {
        return pending.size();
    }

    /** Every request waiting here fails with {@code why} (the replica stopped serving). */
    public void failAll(RuntimeException why) {
        List<Pending> waiting = new ArrayList<>(pending.values());
        pending.clear();
        waiting.forEach(p -> p.reply.completeExceptionally(why));
    }

    /**
     * A foreground thread gave up waiting for {@code id} (timeout). The execution still happens; the entry goes
     * when its last waiter leaves, so a retry that joined it still gets the reply.
     */
    void abandon(RequestId id, CompletableFuture<Reply> waitedFor) {
        pending.computeIfPresent(id, (k, p) -> p.reply == waitedFor && --p.waiters == 0 ? null : p);
    }
}
