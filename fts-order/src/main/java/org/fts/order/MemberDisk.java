package org.fts.order;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.fts.gc.GroupConfig;
import org.fts.gc.MemberId;
import org.fts.gc.internal.DeliveryPump;
import org.fts.gc.internal.EpochId;
import org.fts.order.Wire.Entry;

/**
 * What a {@link Member} does with its log ({@code fts.durability=log}): its standing after a restart, and the
 * repair of damaged entries (docs/durability.md, "Storage faults"): damaged records kept and reported, copies that
 * verify written in their place, the entries after them held again; or the log cut where the recovery found that a
 * damaged entry was never committed. Guarded, as the member, by the member's monitor.
 */
abstract class MemberDisk extends MemberState {
    MemberDisk(MemberId self, GroupConfig config, DeliveryPump pump, Origin origin, Member.Net net, MemberLog disk,
               boolean offload) {
        super(self, config, pump, origin, net, disk, offload);
    }

    /** The writer synced more: with {@link #durablePair}, what it holds of the sequencer's synced part is committed. */
    final synchronized void durableAdvanced() {
        if (durablePair && phase instanceof Phase.Open) {
            deliverCommitted();
        }
    }

    /**
     * A restarted member's standing, from its log: it holds the history it logged; its application goes on from
     * its newest checkpoint (or the initial state) and is rebuilt by delivering the log after it again (a state of
     * its own, so synced), unless its log has none to go on from (a gap whose state it had not checkpointed yet:
     * it fetches one); it promised what it promised. Not fresh: its history counts at the next recovery.
     */
    final void restore(DurableLog.Loaded l) {
        DurableLog.EpochMeta m = l.meta();
        promised = m.promised();
        if (m.epochSeq() == null) {
            if (!l.entries().isEmpty()) {   // entries are logged only after their epoch: its meta was lost
                throw new java.io.UncheckedIOException(new java.io.IOException("the log holds entries "
                        + (l.from() + 1) + ".." + l.entries().get(l.entries().size() - 1).gseq() + " but its "
                        + "epoch.meta names no epoch: refusing to guess (restore the file, or empty the directory to "
                        + "start this replica afresh)"));
            }
            logged = held;
            return;   // fresh: nothing opened, so nothing acknowledged (a gap's checkpoint without its epoch unused)
        }
        held = l.from();
        delivered = l.from();
        if (l.root() != null) {
            marks.putAll(l.root().marks());
            rootMarks = Map.copyOf(l.root().marks());
        }
        l.damaged().forEach(d -> damaged.put(d.from(), d));
        long firstDamaged = damaged.isEmpty() ? Long.MAX_VALUE : damaged.firstKey();
        for (Entry e : l.entries()) {
            if (e.gseq() < firstDamaged) {
                log.put(e.gseq(), e);
                held = e.gseq();
            } else {
                beyond.put(e.gseq(), e);   // after a damaged entry: held once that is repaired
            }
            marks.merge(e.origin(), e.oseq(), Math::max);
        }
        damaged.values().stream().filter(d -> d.origin() != null).forEach(d -> marks.merge(d.origin(), d.oseq(),
                Math::max));
        extent = Math.max(held, l.last());
        damagedBase = l.damagedBase();
        logged = extent;
        replayTo = extent;
        // A checkpoint's position was delivered, so committed; a founding again's is not (its history starts after it).
        boolean refoundRoot = l.root() != null && l.root().initial() && l.from() > 0;
        commitKnown = Math.max(refoundRoot ? 0 : l.from(), l.commitHint());
        rooted = l.rooted();
        rootFloor = l.from();
        applied = !rooted || l.from() > 0 && !refoundRoot;   // a founding again's root is the initial state
        if (!rooted) {
            delivered = held;   // nothing to replay into: the application fetches the group's state
            LOG.warn("{}: its log holds entries {} to {} but no state to replay them on (a gap it had not "
                    + "checkpointed): it fetches the group's state", self, l.from() + 1, held);
        } else if (l.root() != null && l.root().state() != null) {
            pump.restore(l.root().position(), l.root().state());
        }
        deliveredMarks.putAll(l.root() != null ? l.root().marks() : Map.of());
        if (!rooted) {
            deliveredMarks.putAll(marks);
        }
        opened = new Wire.Opened(m.epochBallot(), new EpochId(m.epochView(), m.epochSeq()), m.founding(), m.members(),
                m.start(), m.lineage());
        fresh = false;
        synced = rooted;
        // The epoch's meta is written when it opens, its prefix synced after: a crash in between leaves a log short
        // of the epoch it names. Such a member reports no epoch (it is cut back and repaired like one catching up),
        // never a short prefix of a later epoch that would outrank the longer logs of an earlier one.
        foreign = extent < opened.start() - 1;
        foreignUpTo = extent;
        if (foreign) {
            LOG.warn("{}: its log ends at {}, before epoch {}'s start {}: it reports no epoch until repaired", self,
                    held, opened.id(), opened.start());
        }
    }

    /** Its damaged positions, as spans for its report. */
    final List<org.fts.gc.internal.EpochPlan.Span> damagedSpans() {
        return damaged.values().stream().map(d -> new org.fts.gc.internal.EpochPlan.Span(d.from(), d.to())).toList();
    }


    /**
     * The mend step: copies of damaged entries, from a member whose copy verifies. They are written to the log in
     * place of the damaged records (durably), the entries after them are held again, and the member reports anew.
     * Returns whether any of {@code entries} was for a damaged position (the member then reports again).
     */
    final boolean mend(List<Entry> entries) {
        List<Entry> fix = new ArrayList<>();
        for (Entry e : entries) {
            Map.Entry<Long, MemberLog.Damaged> d = damaged.floorEntry(e.gseq());
            if (d != null && d.getValue().to() >= e.gseq() && (d.getValue().origin() == null
                    || d.getValue().origin().equals(e.origin()) && d.getValue().oseq() == e.oseq())) {
                fix.add(e);
            } else if (d != null && d.getValue().to() >= e.gseq()) {
                LOG.error("{}: a copy of damaged entry {} is {}:{}, but the record says {}:{}: not taken", self,
                        e.gseq(), e.origin(), e.oseq(), d.getValue().origin(), d.getValue().oseq());
            }
        }
        if (fix.isEmpty()) {
            return false;
        }
        List<MemberLog.Damaged> left = disk.repair(fix);
        damaged.clear();
        left.stream().filter(d -> d.to() > rootPosition()).forEach(d -> damaged.put(d.from(), d));
        for (Entry e : fix) {
            if (damaged.floorEntry(e.gseq()) == null || damaged.floorEntry(e.gseq()).getValue().to() < e.gseq()) {
                beyond.put(e.gseq(), e);
                marks.merge(e.origin(), e.oseq(), Math::max);
            }
        }
        holdBeyond();
        LOG.info("{}: mended {} damaged entries of its log from another replica's copies; {} damaged left", self,
                fix.size(), damaged.size());
        return true;
    }

    /** The position its history goes on from (its checkpoint's, or where its log starts). */
    final long rootPosition() {
        return disk.loaded().from();
    }

    /** Holds the entries after a repaired damage, up to the next damaged one. */
    final void holdBeyond() {
        long firstDamaged = damaged.isEmpty() ? Long.MAX_VALUE : damaged.firstKey();
        for (Entry next = beyond.get(held + 1); next != null && next.gseq() < firstDamaged;
             next = beyond.get(held + 1)) {
            beyond.remove(next.gseq());
            log.put(next.gseq(), next);
            held = next.gseq();
        }
    }

    /** Drops its log after {@code after} (the mend step's cut), and what it held or marked of it. */
    final void cutForMend(long after) {
        LOG.warn("{}: cuts its log after {} (was {}): its damaged entry {} has no copy that verifies at any replica "
                + "here, and cannot have been committed", self, after, extent, after + 1);
        disk.truncateAfter(after);
        log.tailMap(after, false).clear();
        beyond.tailMap(after, false).clear();
        damaged.tailMap(after, false).clear();
        held = Math.min(held, after);
        extent = after;
        logged = Math.min(logged, after);
        replayTo = Math.min(replayTo, after);
        marks.clear();
        marks.putAll(rootMarks);
        log.values().forEach(e -> marks.merge(e.origin(), e.oseq(), Math::max));
        beyond.values().forEach(e -> marks.merge(e.origin(), e.oseq(), Math::max));
        damaged.values().stream().filter(d -> d.origin() != null).forEach(d -> marks.merge(d.origin(), d.oseq(),
                Math::max));
    }
}
