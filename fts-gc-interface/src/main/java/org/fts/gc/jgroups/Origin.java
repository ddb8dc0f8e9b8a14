package org.fts.gc.jgroups;

import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;

import org.fts.gc.MemberId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The origin role of {@link TotalOrder}: numbers this member's broadcasts (oseq), forwards each to the
 * sequencer of the epoch it follows, and keeps it until it delivers it back. When a new epoch opens, it
 * resends every broadcast not yet delivered, in oseq order, before any new one (the sequencer drops those it
 * already ordered): so a broadcast lost with a dead sequencer, or cast while no epoch was open, is ordered
 * exactly once. Guarded by its own lock, the first in {@link TotalOrder}'s lock order.
 */
final class Origin {
    /** Where forwards go. */
    interface Forwarder {
        void forward(MemberId sequencer, long oseq, long firstUnacked, byte[] payload);
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
    /** The member's step that last moved this origin: a late, older step is ignored. */
    private long step;
    /** Locks later in the lock order (the sequencer's, the member's): never held when this one is taken. */
    private Object[] later = new Object[0];

    Origin(MemberId self, Forwarder net) {
        this.self = self;
        this.net = net;
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
        synchronized (lock) {
            long oseq = nextOseq++;
            unacked.put(oseq, payload);
            if (sequencer == null) {
                return;   // no epoch open: resent when one opens
            }
            if (resendPending) {
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
        }
    }

    /**
     * An epoch opened (at the member's step {@code at}) with {@code seq} as its sequencer: resend everything
     * not yet delivered, then go on.
     */
    void resume(long at, MemberId seq) {
        assert holdsNoLaterLock() : "lock order: origin after sequencer or member";
        synchronized (lock) {
            if (at < step) {
                return;   // the member froze again meanwhile
            }
            step = at;
            sequencer = seq;
            resendPending = true;
            resendLocked();
        }
    }

    /** This member delivered its own broadcast {@code oseq} (and so every earlier one). */
    void delivered(long oseq) {
        unacked.headMap(oseq, true).clear();
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
}
