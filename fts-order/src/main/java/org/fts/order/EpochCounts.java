package org.fts.order;

import java.util.concurrent.atomic.AtomicLong;

import org.fts.gc.MemberId;
import org.fts.gc.internal.EpochId;

/**
 * The shipped {@link MemberObserver}: how many epochs this member opened, and how many of them with a gap (it had to
 * fetch the group's state) or by founding the group again. Read by {@link OrderStats}; deliveries are not counted here
 * (the member's own counters say how far it delivered).
 */
final class EpochCounts implements MemberObserver {
    private final AtomicLong opened = new AtomicLong();
    private final AtomicLong withGap = new AtomicLong();
    private final AtomicLong refounded = new AtomicLong();

    @Override
    public void delivered(long gseq, MemberId origin, byte[] payload) {
    }

    @Override
    public void opened(EpochId epoch, long ballot, long start, boolean gap, boolean refound, MemberId provider) {
        opened.incrementAndGet();
        if (gap) {
            withGap.incrementAndGet();
        }
        if (refound) {
            refounded.incrementAndGet();
        }
    }

    long opened() {
        return opened.get();
    }

    long withGap() {
        return withGap.get();
    }

    long refounded() {
        return refounded.get();
    }
}
