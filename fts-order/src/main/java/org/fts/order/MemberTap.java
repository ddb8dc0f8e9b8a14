package org.fts.order;

import org.fts.gc.MemberId;
import org.fts.gc.internal.EpochId;

/**
 * Observes what a {@link Member} delivers and the epochs it opens, with their positions in the history (the
 * protocol simulator checks its invariants there). Called under the member's monitor: it must not call back into
 * the protocol, nor change {@code payload}.
 */
interface MemberTap {
    void delivered(long gseq, MemberId origin, byte[] payload);

    /**
     * {@code refound} as the recovery said it, before a member that delivered turns it into a gap; {@code ballot} the
     * ballot that established the epoch (view ids repeat after a whole-group restart, ballots do not).
     */
    void opened(EpochId epoch, long ballot, long start, boolean gap, boolean refound, MemberId provider);
}
