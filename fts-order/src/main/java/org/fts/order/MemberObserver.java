package org.fts.order;

import org.fts.gc.MemberId;
import org.fts.gc.internal.EpochId;

/**
 * Observes what a {@link Member} delivers and the epochs it opens, with their positions in the history; handed to the
 * member when it is made. The shipped one ({@link EpochCounts}) counts openings for {@link OrderStats}; the protocol
 * simulator checks its invariants with its own. Called under the member's monitor: it must not call back into the
 * protocol, nor change {@code payload}.
 */
interface MemberObserver {
    void delivered(long gseq, MemberId origin, byte[] payload);

    /**
     * {@code refound} as the recovery said it, before a member that delivered turns it into a gap; {@code ballot} the
     * ballot that established the epoch (view ids repeat after a whole-group restart, ballots do not).
     */
    void opened(EpochId epoch, long ballot, long start, boolean gap, boolean refound, MemberId provider);
}
