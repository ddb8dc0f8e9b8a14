package org.fts.order;

import java.util.List;

import org.fts.gc.MemberId;
import org.fts.gc.internal.EpochId;

/**
 * Where a {@link Sequencer} stands, as {@link Phase} says where a {@link Member} does. Each view starts it
 * afresh: {@link Recovering} on the view's coordinator, {@link Idle} elsewhere.
 */
sealed interface SequencerState {

    /** Not the coordinator of the current view, or its recovery ended without an epoch. */
    record Idle() implements SequencerState {
    }

    /** Runs the recovery of view {@code view} over {@code members}: collects their reports. */
    record Recovering(long view, List<MemberId> members) implements SequencerState {
    }

    /** The recovery established {@code epoch}; the sequencer waits for its own member to open it. */
    record Pending(EpochId epoch, List<MemberId> members) implements SequencerState {
    }

    /** Orders the broadcasts of {@code epoch}, whose members are {@code members}. */
    record Sequencing(EpochId epoch, List<MemberId> members) implements SequencerState {
    }
}
