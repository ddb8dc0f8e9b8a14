package org.fts.order;

import java.util.Map;

import org.fts.gc.MemberId;
import org.fts.gc.internal.EpochId;
import org.fts.order.Wire.Entry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A durable {@link Member}'s standing after a restart, from its log ({@code fts.durability=log}), found as it is made:
 * the history it holds goes into the member's {@link HistoryCounters}, log and marks; its standing in recoveries is
 * returned, for the member to take.
 */
final class Restart {
    private static final Logger LOG = LoggerFactory.getLogger(Restart.class);

    private Restart() {
    }

    /**
     * A restarted member's standing in recoveries: what it promised, and the last epoch it opened (null: it opened
     * none, so it is fresh); then whether its application holds the group's state, whether it reports no epoch
     * ({@code foreign}, its log ending before its epoch's start) and how far its log is that epoch's history, and from
     * where a power loss may have damaged what it acknowledged.
     */
    record Standing(long promised, Wire.Opened opened, boolean synced, boolean foreign, long foreignUpTo,
                    long mayHoldFrom) {
    }

    /**
     * A restarted member's standing, from its log: it holds the history it logged; its application goes on from
     * its newest checkpoint (or the initial state) and is rebuilt by delivering the log after it again (a state of
     * its own, so synced), unless its log has none to go on from (a gap whose state it had not checkpointed yet:
     * it fetches one); it promised what it promised. Not fresh: its history counts at the next recovery.
     */
    static Standing restore(Member m, DurableLog.Loaded l) {
        DurableLog.EpochMeta meta = l.meta();
        if (meta.epochSeq() == null) {
            if (!l.entries().isEmpty()) {   // entries are logged only after their epoch: its meta was lost
                throw new java.io.UncheckedIOException(new java.io.IOException("the log holds entries "
                        + (l.from() + 1) + ".." + l.entries().get(l.entries().size() - 1).gseq() + " but its "
                        + "epoch.meta names no epoch: refusing to guess (restore the file; or, while every other "
                        + "replica is up and serving, empty the directory to start this replica afresh: it fetches "
                        + "the group's state)"));
            }
            // fresh: nothing opened, so nothing acknowledged (a gap's checkpoint without its epoch unused)
            return new Standing(meta.promised(), null, false, false, 0, Long.MAX_VALUE);
        }
        boolean rooted = l.rooted();
        // A checkpoint's position was delivered, so committed; a founding again's is not (its history starts after it).
        boolean refoundRoot = l.root() != null && l.root().initial() && l.from() > 0;
        HistoryCounters h = m.history;
        h.restartAt(l.from(), !rooted || l.from() > 0 && !refoundRoot);   // a founding again's root: the initial state
        Map<MemberId, Long> rootMarks = l.root() != null ? l.root().marks() : Map.of();
        m.marks.putAll(rootMarks);
        m.damage.loaded(rootMarks, l.damaged(), l.damagedBase());
        long firstDamaged = m.damage.firstDamaged();
        for (Entry e : l.entries()) {
            if (e.gseq() < firstDamaged) {
                m.log.put(e.gseq(), e);
                h.hold(e.gseq());
            } else {
                m.damage.keep(e);   // after a damaged entry: held once that is repaired
            }
            m.marks.merge(e.origin(), e.oseq(), Math::max);
        }
        m.damage.markInto(m.marks);
        m.damage.extent(Math.max(h.held(), l.last()));
        h.logged(m.damage.extent());
        h.replayThrough(m.damage.extent());
        // A root with no state (a gap it had not checkpointed) was written as the epoch opened: the continued history's
        // tail it ends with commits only once a majority opened that epoch, so its position is not known committed.
        h.knowCommitted(Math.max(refoundRoot || !rooted ? 0 : l.from(), l.commitHint()));
        if (!rooted) {
            h.nothingToReplay();   // the application fetches the group's state
            LOG.warn("{}: its log holds entries {} to {} but no state to replay them on (a gap it had not "
                    + "checkpointed): it fetches the group's state", m.self, l.from() + 1, h.held());
        } else if (l.root() != null && l.root().state() != null) {
            m.pump.restore(l.root().position(), l.root().state());
        }
        m.checkpoints.restored(rooted, l.from(), rootMarks, m.marks);
        Wire.Opened opened = new Wire.Opened(meta.epochBallot(), new EpochId(meta.epochView(), meta.epochSeq()),
                meta.founding(), meta.members(), meta.start(), meta.lineage());
        // The epoch's meta is written when it opens, its prefix synced after: a crash in between leaves a log short
        // of the epoch it names. Such a member reports no epoch (it is cut back and repaired like one catching up),
        // never a short prefix of a later epoch that would outrank the longer logs of an earlier one.
        boolean foreign = m.damage.extent() < opened.start() - 1;
        if (foreign) {
            LOG.warn("{}: its log ends at {}, before epoch {}'s start {}: it reports no epoch until repaired", m.self,
                    h.held(), opened.id(), opened.start());
        }
        return new Standing(meta.promised(), opened, rooted, foreign, m.damage.extent(), l.uncertainFrom());
    }
}
