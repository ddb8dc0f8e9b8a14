package org.fts.order;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;

import org.fts.gc.MemberId;
import org.fts.gc.internal.EpochId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The origin role of {@link TotalOrder}: numbers this member's broadcasts (oseq), forwards each to the
 * sequencer of the epoch it follows, and keeps it until it delivers it back. When a new epoch opens, it
 * resends every broadcast not yet delivered, in oseq order, before any new one (the sequencer drops those it
 * already ordered): so a broadcast lost with a dead sequencer, or cast while no epoch was open, is ordered
 * exactly once. Guarded by its own lock, the first in {@link TotalOrder}'s lock order.
 *
 * <p>Under {@link Ordering#OFFLOAD} it forwards no payload: it asks the sequencer for positions for everything
 * queued (one request outstanding, UUM2), and {@link #granted} turns a grant of its current epoch into the entries
 * it multicasts itself; a grant of any other epoch is stale and refused. A new epoch asks again for everything not
 * yet delivered, as the forwards are resent.
 */
final class Origin {
    /** Where forwards go. */
    interface Forwarder {
        void forward(MemberId sequencer, long oseq, long firstUnacked, byte[] payload);

        /** Offload: asks {@code epoch}'s sequencer for positions for oseqs {@code from}..{@code to}. */
        void request(EpochId epoch, Wire.Req req);
    }

    /** A grant this origin accepted: the entries it multicasts, of {@code epoch}. */
    record Granted(EpochId epoch, java.util.List<Wire.Entry> entries) {
    }

    private static final Logger LOG = LoggerFactory.getLogger(Origin.class);

    private final MemberId self;
    private final Forwarder net;
    final Object lock = new Object();
    private long nextOseq = 1;
    /** Concurrent: deliveries remove from it without the lock. */
    private final ConcurrentSkipListMap<Long, byte[]> unacked = new ConcurrentSkipListMap<>();
    private MemberId sequencer;
    private boolean resendPending;
    private final boolean offload;
    /** Offload: most of this member's broadcasts not yet delivered before a new one waits ({@link #awaitRoom}). */
    static final int IN_FLIGHT = 1024;
    static final long ROOM_WAIT_MS = 5_000;
    private final Object room = new Object();
    /** Offload: the last oseq cast, the last delivered back, and how many callers wait for room (under room). */
    private volatile long lastCast;
    /** System.nanoTime() of this member's last broadcast; long ago before its first ({@link #quietFor}). */
    private volatile long lastAbcastNanos = System.nanoTime() - (1L << 62);
    private final java.util.concurrent.atomic.AtomicLong deliveredTo = new java.util.concurrent.atomic.AtomicLong();
    private volatile int waiting;
    /**
     * Offload: the epoch followed (null: none open; volatile for {@link #awaitRoom}), the last oseq asked for in it,
     * whether a request is out.
     */
    private volatile EpochId epoch;
    private long requestedTo;
    private boolean outstanding;
    private long requestedAt;
    /** The member's step that last moved this origin: a late, older step is ignored. */
    private long step;
    /** Locks later in the lock order (the sequencer's, the member's): never held when this one is taken. */
    private Object[] later = new Object[0];

    Origin(MemberId self, Forwarder net, Ordering ordering) {
        this.self = self;
        this.net = net;
        this.offload = ordering == Ordering.OFFLOAD;
    }

    /** Declares the locks that come after this one, for the lock-order assertions (tests run with -ea). */
    void lockOrder(Object... laterLocks) {
        this.later = laterLocks;
    }

    private boolean holdsNoLaterLock() {
        for (Object l : later) {
            if (Thread.holdsLock(l)) {
                return false;
            }
        }
        return true;
    }

    void abcast(byte[] payload) {
        assert holdsNoLaterLock() : "lock order: origin after sequencer or member";
        lastAbcastNanos = System.nanoTime();
        if (offload) {
            awaitRoom();
        }
        synchronized (lock) {
            long oseq = nextOseq++;
            unacked.put(oseq, payload);
            if (offload) {
                lastCast = oseq;
            }
            if (sequencer == null) {
                return;   // no epoch open: resent when one opens
            }
            if (offload) {
                requestMore();
            } else if (resendPending) {
                resendLocked();   // this one included: forwards leave in oseq order, or the sequencer parks them
            } else {
                forward(oseq, payload);
            }
        }
    }

    /**
     * The epoch this member followed ends (it froze for a recovery, at its step {@code at}): hold new
     * broadcasts until the next.
     */
    void suspend(long at) {
        assert holdsNoLaterLock() : "lock order: origin after sequencer or member";
        synchronized (lock) {
            if (at < step) {
                return;
            }
            step = at;
            sequencer = null;
            epoch = null;
        }
    }

    /**
     * Epoch {@code opened} opened (at the member's step {@code at}): resend (offload: ask again for) everything
     * not yet delivered, then go on.
     */
    void resume(long at, EpochId opened) {
        assert holdsNoLaterLock() : "lock order: origin after sequencer or member";
        synchronized (lock) {
            if (at < step) {
                return;   // the member froze again meanwhile
            }
            step = at;
            sequencer = opened.sequencer();
            if (offload) {
                epoch = opened;
                outstanding = false;
                Map.Entry<Long, byte[]> first = unacked.firstEntry();
                requestedTo = (first == null ? nextOseq : first.getKey()) - 1;
                requestMore();
                return;
            }
            resendPending = true;
            resendLocked();
        }
    }

    /** Offload, under the lock: asks for everything queued and not asked for in this epoch, unless a request is out. */
    private void requestMore() {
        long last = nextOseq - 1;
        if (outstanding || last <= requestedTo) {
            return;
        }
        Map.Entry<Long, byte[]> first = unacked.firstEntry();
        long from = requestedTo + 1;
        long firstUnacked = first == null ? from : Math.min(first.getKey(), from);
        outstanding = true;
        requestedTo = last;
        requestedAt = System.nanoTime();
        net.request(epoch, new Wire.Req(epoch.view(), from, last, firstUnacked));
    }

    /**
     * Offload: {@code from} granted positions. Returns the entries to multicast (none for a stale grant: another
     * epoch's, or not from this epoch's sequencer), and asks for what was queued meanwhile.
     */
    Granted granted(MemberId from, Wire.Grant g) {
        assert holdsNoLaterLock() : "lock order: origin after sequencer or member";
        synchronized (lock) {
            if (epoch == null || !from.equals(epoch.sequencer()) || g.epochView() != epoch.view()) {
                LOG.debug("{}: refused a stale grant of view {} from {} (follows {})", self, g.epochView(), from, epoch);
                return new Granted(null, List.of());
            }
            outstanding = false;
            List<Wire.Entry> out = new ArrayList<>((int) Math.max(0, g.to() - g.from() + 1));
            for (long oseq = g.from(); oseq <= g.to(); oseq++) {
                byte[] payload = unacked.get(oseq);
                if (payload == null) {   // delivered, so ordered already: the sequencer never grants those
                    LOG.error("{}: granted position {} for broadcast {}, which it no longer holds", self,
                            g.gseq() + oseq - g.from(), oseq);
                    continue;
                }
                out.add(new Wire.Entry(g.gseq() + oseq - g.from(), self, oseq, payload));
            }
            requestMore();
            return new Granted(epoch, out);
        }
    }

    /**
     * Offload, from the timer: a request out for {@code afterNanos} is asked again (a control message can be lost
     * with a connection JGroups resets around a merge; the sequencer grants each broadcast once, so a repeated
     * request costs at most an empty grant).
     */
    void retryRequest(long now, long afterNanos) {
        synchronized (lock) {
            if (!offload || epoch == null || !outstanding || now - requestedAt < afterNanos) {
                return;
            }
            outstanding = false;
            Map.Entry<Long, byte[]> first = unacked.firstEntry();
            requestedTo = (first == null ? nextOseq : first.getKey()) - 1;
            requestMore();
        }
    }

    /** This member delivered its own broadcast {@code oseq} (and so every earlier one). */
    void delivered(long oseq) {
        unacked.headMap(oseq, true).clear();
        if (offload) {
            deliveredTo.accumulateAndGet(oseq, Math::max);   // also from an opening's runnable, outside the monitor
            if (waiting > 0) {
                synchronized (room) {
                    room.notifyAll();
                }
            }
        }
    }

    /**
     * Offload's backpressure: a broadcast waits while {@link #IN_FLIGHT} of this member's are not delivered yet and an
     * epoch is open. Under sequencer ordering the forward's flow control holds the caller; under offload the caller
     * only queues (its multicasts run on another thread), and a flood would grow the queue without bound. Waits at
     * most {@link #ROOM_WAIT_MS}: then it queues regardless (a caller on a thread the group needs must not hang).
     */
    private void awaitRoom() {
        if (lastCast - deliveredTo.get() < IN_FLIGHT || epoch == null) {
            return;   // the common case: no monitor, no count of the queue
        }
        long deadline = System.nanoTime() + ROOM_WAIT_MS * 1_000_000L;
        synchronized (room) {
            waiting++;
            try {
                while (lastCast - deliveredTo.get() >= IN_FLIGHT && epoch != null) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        return;
                    }
                    room.wait(Math.max(1, Math.min(left / 1_000_000L, 100)));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                waiting--;
            }
        }
    }

    private void resendLocked() {
        resendPending = false;
        if (!unacked.isEmpty()) {
            LOG.debug("{}: resends {} broadcasts not yet delivered to {}", self, unacked.size(), sequencer);
        }
        for (Map.Entry<Long, byte[]> e : unacked.entrySet()) {
            forward(e.getKey(), e.getValue());
        }
    }

    /** Under the lock; deliveries may already have removed this very broadcast (then the sequencer drops it). */
    private void forward(long oseq, byte[] payload) {
        Map.Entry<Long, byte[]> first = unacked.firstEntry();
        long firstUnacked = first == null ? oseq : Math.min(first.getKey(), oseq);
        net.forward(sequencer, oseq, firstUnacked, payload);
    }

    int unackedCount() {
        return unacked.size();
    }

    /**
     * Whether this member has none of its broadcasts on their way and cast none in the last {@code nanos}: its
     * clients are quiet (replays that wait, {@code Following.deliverCommitted}).
     */
    boolean quietFor(long nanos) {
        return unacked.isEmpty() && System.nanoTime() - lastAbcastNanos > nanos;
    }

    /** Whether broadcasts of this origin are on their way (forwarded, not delivered back yet). */
    boolean forwarding() {
        return !unacked.isEmpty();
    }
}
