package org.fts.order;

import java.util.Map;

import org.fts.gc.MemberId;
import org.fts.gc.internal.EpochId;
import org.fts.order.Wire.Entry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A durable {@link Member}'s standing after a restart, from its log ({@code fts.durability=log}), set as it is made.
 */
final class Restart {
    private static final Logger LOG = LoggerFactory.getLogger(Restart.class);

    private Restart() {
    }

    /**
     * A restarted member's standing, from its log: it holds the history it logged; its application goes on from
     * its newest checkpoint (or the initial state) and is rebuilt by delivering the log after it again (a state of
     * its own, so synced), unless its log has none to go on from (a gap whose state it had not checkpointed yet:
     * it fetches one); it promised what it promised. Not fresh: its history counts at the next recovery.
     */
    static void restore(Member m, DurableLog.Loaded l) {
        DurableLog.EpochMeta meta = l.meta();
        m.promised = meta.promised();
        if (meta.epochSeq() == null) {
            if (!l.entries().isEmpty()) {   // entries are logged only after their epoch: its meta was lost
                throw new java.io.UncheckedIOException(new java.io.IOException("the log holds entries "
                        + (l.from() + 1) + ".." + l.entries().get(l.entries().size() - 1).gseq() + " but its "
                        + "epoch.meta names no epoch: refusing to guess (restore the file; or, while every other "
                        + "replica is up and serving, empty the directory to start this replica afresh: it fetches "
                        + "the group's state)"));
            }
            m.logged = m.held;
            return;   // fresh: nothing opened, so nothing acknowledged (a gap's checkpoint without its epoch unused)
        }
        m.held = l.from();
        m.delivered = l.from();
        m.mayHoldFrom = l.uncertainFrom();
        Map<MemberId, Long> rootMarks = l.root() != null ? l.root().marks() : Map.of();
        m.marks.putAll(rootMarks);
        m.damage.loaded(rootMarks, l.damaged(), l.damagedBase());
        long firstDamaged = m.damage.firstDamaged();
        for (Entry e : l.entries()) {
            if (e.gseq() < firstDamaged) {
                m.log.put(e.gseq(), e);
                m.held = e.gseq();
            } else {
                m.damage.keep(e);   // after a damaged entry: held once that is repaired
            }
            m.marks.merge(e.origin(), e.oseq(), Math::max);
        }
        m.damage.markInto(m.marks);
        m.damage.extent(Math.max(m.held, l.last()));
        m.logged = m.damage.extent();
        m.replayTo = m.damage.extent();
        // A checkpoint's position was delivered, so committed; a founding again's is not (its history starts after it).
        boolean refoundRoot = l.root() != null && l.root().initial() && l.from() > 0;
        m.commitKnown = Math.max(refoundRoot ? 0 : l.from(), l.commitHint());
        boolean rooted = l.rooted();
        m.applied = !rooted || l.from() > 0 && !refoundRoot;   // a founding again's root is the initial state
        if (!rooted) {
            m.delivered = m.held;   // nothing to replay into: the application fetches the group's state
            LOG.warn("{}: its log holds entries {} to {} but no state to replay them on (a gap it had not "
                    + "checkpointed): it fetches the group's state", m.self, l.from() + 1, m.held);
        } else if (l.root() != null && l.root().state() != null) {
            m.pump.restore(l.root().position(), l.root().state());
        }
        m.checkpoints.restored(rooted, l.from(), rootMarks, m.marks);
        m.opened = new Wire.Opened(meta.epochBallot(), new EpochId(meta.epochView(), meta.epochSeq()), meta.founding(),
                meta.members(), meta.start(), meta.lineage());
        m.fresh = false;
        m.synced = rooted;
        // The epoch's meta is written when it opens, its prefix synced after: a crash in between leaves a log short
        // of the epoch it names. Such a member reports no epoch (it is cut back and repaired like one catching up),
        // never a short prefix of a later epoch that would outrank the longer logs of an earlier one.
        m.foreign = m.damage.extent() < m.opened.start() - 1;
        m.foreignUpTo = m.damage.extent();
        if (m.foreign) {
            LOG.warn("{}: its log ends at {}, before epoch {}'s start {}: it reports no epoch until repaired", m.self,
                    m.held, m.opened.id(), m.opened.start());
        }
    }
}
