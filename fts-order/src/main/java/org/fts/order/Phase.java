package org.fts.order;

import java.util.List;
import java.util.Map;

import org.fts.gc.MemberId;
import org.fts.gc.internal.EpochId;

/**
 * Where a {@link Member} stands in the group's history. Each transition is one method of {@link Member};
 * a member delivers only while {@link Open}.
 */
sealed interface Phase {

    /** A new member before its first recovery: it holds nothing and follows no epoch. */
    record Joining() implements Phase {
    }

    /**
     * Delivering the ORDs of the epoch it {@code opened} from its sequencer. A view change alone does not end it. The
     * member's last opened epoch ({@code Member.opened}) is this very record's while it is open.
     *
     * @param tailEnd     the last entry of the history the epoch continues: delivered only once committed in it
     * @param shortcut    it delivers what it holds without waiting for a COMMIT: under agreed delivery, or where this
     *                    member and its sequencer are a majority (3 replicas), without a log and not offload (the
     *                    sequencer held an ORD before sending it)
     * @param durablePair with a log, where this member and its sequencer are a majority (3 replicas): what this
     *                    member's disk holds of what the sequencer's disk holds (told by its COMMITs) is committed,
     *                    without waiting for the sequencer to count a follower's ACK: the memory mode's shortcut, made
     *                    durable (docs/durability.md)
     */
    record Open(Wire.Opened opened, long tailEnd, boolean shortcut, boolean durablePair) implements Phase {
        EpochId epoch() {
            return opened.id();
        }

        List<MemberId> members() {
            return opened.members();
        }
    }

    /**
     * Reported its state to the recovery of view {@code view} ({@code members}, coordinated by
     * {@code coordinator}), promising {@code ballot}: it delivers nothing of its old epoch any more.
     */
    record Frozen(long view, List<MemberId> members, MemberId coordinator, long ballot) implements Phase {
    }

    /**
     * The recovery of {@code view} established {@code epoch}, opening at {@code start}: the member waits for the
     * repairs that bring it up to {@code start - 1} (none with {@code gap} or {@code refound}: it skips), then
     * opens. {@code ballot} is the ballot that established the epoch; {@code truncate}, if not -1, where a durable
     * member's log was cut back before its repairs; {@code lineage} the older epochs whose history it continues;
     * {@code witness}, if not -1, where the tail a member with a gap holds before it opens begins.
     */
    record Catching(long view, EpochId epoch, List<MemberId> members, long start, boolean gap, boolean refound,
                    MemberId provider, Map<MemberId, Long> marks, long ballot, long truncate,
                    List<org.fts.gc.internal.EpochPlan.Link> lineage, long witness) implements Phase {
    }

    /** The recovery of {@code view} found the view not primary: nothing is delivered until the next view. */
    record Blocked(long view, String reason) implements Phase {
    }
}
