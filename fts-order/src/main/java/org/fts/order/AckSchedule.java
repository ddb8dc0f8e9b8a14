package org.fts.order;

import org.fts.gc.GroupConfig;

/**
 * When a {@link Member} acknowledges what it holds to its sequencer: every batch under uniform delivery (the commit
 * point waits for it), else every {@value #EVERY} entries; and, asked by the timer, once more while it holds entries
 * it does not know committed. An acknowledgement can be lost (one sent before the sequencer opened the epoch, or
 * dropped with a connection), and with no further traffic the commit point would never move past it. The repeat is
 * once per standing (what it holds, and what it knows committed), so that a commit stuck for another reason costs
 * one message, not one per tick.
 *
 * <p>Under uniform delivery the acknowledgement of a batch may be lost ({@link Due#lossy}, unless the member forwards
 * broadcasts of its own: the JGroups binding sends it outside its reliable channel, {@link TotalOrder.Transport#ack});
 * the timer's repeat, which is reliable, covers it (within a tick, where another member's acknowledgement did not).
 * Every other acknowledgement is reliable: the timer's, agreed delivery's (which has no repeat), and the one that
 * opens an epoch. Guarded by the member's monitor.
 */
final class AckSchedule {
    static final int EVERY = 512;

    /**
     * An acknowledgement due: the member holds up to {@code held} of the epoch of view {@code view}; {@code lossy}: it
     * may go by the binding's unreliable path (a repeat covers it).
     */
    record Due(long view, long held, boolean lossy) {
    }

    private final GroupConfig config;
    private long lastAcked;
    /** The standing the member last repeated its acknowledgement for, or -1. */
    private long repeatedAt = -1;

    AckSchedule(GroupConfig config) {
        this.config = config;
    }

    /** The member opened an epoch holding {@code acknowledged}, which its opening acknowledges. */
    void opened(long acknowledged) {
        lastAcked = acknowledged;
        repeatedAt = -1;
    }

    /**
     * The acknowledgement owed for holding {@code ackable} of the epoch of view {@code view}, knowing {@code
     * commitKnown} committed, or null; {@code always}: asked by the timer.
     */
    Due due(long view, long ackable, long commitKnown, boolean always) {
        if (ackable <= lastAcked) {
            long standing = ackable + commitKnown * 31;
            if (!always || !config.uniform() || commitKnown >= ackable || repeatedAt == standing) {
                return null;
            }
            repeatedAt = standing;   // once per standing: a repeat that is lost too waits for traffic
            return new Due(view, ackable, false);
        }
        if (!(always || config.uniform() || ackable - lastAcked >= EVERY)) {
            return null;
        }
        lastAcked = ackable;
        return new Due(view, ackable, !always && config.uniform());
    }
}
