package org.fts.order;

import org.fts.gc.internal.EpochId;

/**
 * The sequencer's read lease (docs/reads.md, {@code fts.reads.lease}): a round of pings that a majority of the
 * replicas answered with a lease also tells the sequencer that none of those members will join a newer epoch's
 * recovery for that long after it answered ({@link Member#grantLease}); no newer epoch can open, or answer anything,
 * before then. So until the lease ends, measured on this sequencer's clock from before it sent the pings and
 * shortened by {@link #DRIFT}, every read it confirms at the position it ordered last is linearizable without asking
 * anyone. Called under {@link ReadConfirmer}'s monitor.
 */
final class ReadLease {
    /**
     * How much faster than a grantor's clock this sequencer's may run: the lease it counts is the one granted less
     * this share. Clocks whose rates differ by more break the lease (docs/reads.md).
     */
    static final double DRIFT = 0.01;

    private final long nanos;
    private EpochId epoch;
    private long until;

    /** @param nanos the lease this member asks for, and grants; 0: no lease */
    ReadLease(long nanos) {
        this.nanos = nanos;
    }

    /** Whether a lease for epoch {@code e} runs at {@code now}. */
    boolean holds(EpochId e, long now) {
        return epoch != null && epoch.equals(e) && until - now > 0;
    }

    /** Whether a round should renew the lease for {@code e} now: none runs, or less than half of it is left. */
    boolean renewDue(EpochId e, long now) {
        return nanos > 0 && (epoch == null || !epoch.equals(e) || until - now < nanos / 2);
    }

    /**
     * A round of epoch {@code e} started at {@code roundStart} (before its pings left) was confirmed by members that
     * granted at least {@code leastGranted} each (0: one of them granted none).
     */
    void confirmed(EpochId e, long roundStart, long leastGranted) {
        if (nanos <= 0 || leastGranted <= 0) {
            return;
        }
        long end = roundStart + (long) (Math.min(leastGranted, nanos) * (1 - DRIFT));
        if (epoch == null || !epoch.equals(e) || end - until > 0) {
            epoch = e;
            until = end;
        }
    }

    /** A view changed: the lease confirms nothing any more. */
    void clear() {
        epoch = null;
    }
}
