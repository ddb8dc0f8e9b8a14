package org.fts.order;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;

import org.fts.gc.MemberId;
import org.fts.gc.View;
import org.fts.gc.internal.EpochId;
import org.fts.order.Wire.Entry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link Member} role in a view's recovery: it freezes and reports its history to the recovery's coordinator
 * (promising its ballot), takes the epoch the recovery established and the repairs that bring it to the epoch's
 * start ({@link Opening} then opens it), mends or cuts a damaged log, and serves as a recovery's source. Called
 * under the member's monitor; methods return what to send, run by the caller after leaving it.
 */
final class Recovery {
    private static final Logger LOG = LoggerFactory.getLogger(Recovery.class);

    private final Member m;
    /** The last view installed here, or null. */
    private View view;

    /** A recovery request for a view not installed here yet: answered once it is. */
    private record Stashed(long view, long ballot, MemberId from) {
    }

    private Stashed stashed;

    Recovery(Member m) {
        this.m = m;
    }

    /** A view was installed here; answers a recovery request that arrived before it. */
    List<Runnable> viewChanged(View v) {
        view = v;
        m.pump.view(v);
        Stashed s = stashed;
        if (s != null && s.view() <= v.id()) {
            stashed = null;
            if (s.view() == v.id() && v.coordinator().equals(s.from())) {
                return freeze(v, s.ballot());
            }
        }
        return List.of();
    }

    /** The coordinator of view {@code viewId} opens its recovery. */
    List<Runnable> onStateReq(MemberId src, long viewId, long ballot) {
        if (view == null || viewId > view.id()) {
            stashed = new Stashed(viewId, ballot, src);   // answered once that view is installed here
            return List.of();
        }
        if (viewId != view.id() || !src.equals(view.coordinator())) {
            return List.of();   // a recovery of a view this member has left
        }
        return freeze(view, ballot);
    }

    private List<Runnable> freeze(View v, long ballot) {
        long viewId = v.id();
        MemberId coordinator = v.coordinator();
        if (m.phase instanceof Phase.Frozen f && f.view() == viewId) {
            if (ballot < f.ballot()) {
                return List.of();   // an older attempt of this recovery
            }
            if (ballot > f.ballot()) {   // the coordinator asks again with a higher ballot (another member refused)
                m.promise(ballot);
                m.enter(new Phase.Frozen(viewId, f.members(), coordinator, ballot));
            }
            Wire.State again = report(viewId);   // a repeated request (its report may have been lost): the same
            return List.of(() -> m.net.state(coordinator, again));
        }
        if (m.phase instanceof Phase.Catching c && c.view() == viewId || m.phase instanceof Phase.Blocked b
                && b.view() == viewId || m.phase instanceof Phase.Open o && o.epoch().view() == viewId) {
            return List.of();   // a repeated request that this recovery's outcome overtook
        }
        if (m.disk != null && ballot <= m.promised) {
            // Paxos' promise: it took part in a recovery with this ballot or a higher one (before a restart of
            // the group, whose views JGroups numbers from 1 again), so the coordinator must ask with a higher one.
            // Without a log, ballots are view ids, which increase at every member while the group lives.
            Wire.Refused no = new Wire.Refused(viewId, ballot, m.promised);
            LOG.info("{}: recovery of view {} asks with ballot {}, but it promised {}", m.self, viewId, ballot,
                    m.promised);
            return List.of(() -> m.net.refused(coordinator, no));
        }
        m.promise(ballot);
        m.enter(new Phase.Frozen(viewId, v.members(), coordinator, ballot));
        m.early.clear();
        m.ahead.clear();
        m.rebase.clear();
        m.following.frozen();
        Wire.State report = report(viewId);
        LOG.debug("{}: frozen for view {}: {}", m.self, viewId, report);
        long at = m.nextStep();
        return List.of(() -> m.origin.suspend(at), () -> m.net.state(coordinator, report));
    }

    private Wire.State report(long viewId) {
        long ballot = ((Phase.Frozen) m.phase).ballot();
        Wire.Opened e = m.opened;
        HistoryCounters h = m.history;
        long last = m.foreign ? m.foreignUpTo : m.damage.isEmpty() ? h.held() : Math.max(h.held(), m.damage.extent());
        return new Wire.State(viewId, ballot, m.fresh, m.synced, e, m.foreign, last,
                // what it knows committed, never beyond what it holds (a lagging member may know of more)
                Math.min(m.config.uniform() ? Math.max(h.commitKnown(), h.deliveredHere()) : h.commitKnown(), last),
                new HashMap<>(m.marks),
                base(), h.delivered(), m.damage.spans(), m.mayHoldFrom, m.cutBack);
    }

    /**
     * The last entry this member can no longer give for a repair: with a log, what compaction left (kept until it
     * opens an epoch); without one, what its memory trimmed once every member held it.
     */
    private long base() {
        long held = m.history.held();
        long inMemory = m.log.isEmpty() ? held : Math.min(held, m.log.firstKey() - 1);
        if (m.disk != null) {
            // what the disk or the memory still holds (and compaction keeps what the disk holds of that)
            return Math.max(m.damage.base(), Math.min(inMemory, Math.min(held, m.disk.pinBase())));
        }
        return inMemory;
    }

    /** The recovery of {@code viewId} found the view not primary. */
    void onNotPrimary(MemberId src, long viewId, String reason) {
        if (!(m.phase instanceof Phase.Frozen f) || f.view() != viewId || !src.equals(f.coordinator())) {
            return;
        }
        m.enter(new Phase.Blocked(viewId, reason));
        LOG.info("{}: view {} is not primary: {}", m.self, viewId, reason);
        m.pump.notPrimary(view, reason);
    }

    /** The recovery of {@code msg.view()} established an epoch, sequenced by {@code src}. */
    List<Runnable> onEpoch(MemberId src, Wire.EpochMsg msg) {
        if (!(m.phase instanceof Phase.Frozen f) || f.view() != msg.view() || !src.equals(f.coordinator())) {
            return List.of();
        }
        m.enter(new Phase.Catching(msg.view(), new EpochId(msg.view(), src), f.members(), msg.start(), msg.gap(),
                msg.refound(), msg.provider(), msg.marks(), msg.ballot(), msg.truncate(), msg.lineage(),
                msg.witness()));
        if (m.disk != null) {
            if (msg.truncate() >= 0) {
                m.truncate(msg.truncate(), msg.marks());
            }
            m.holdAhead();   // repairs that came before the epoch
        } else if (msg.truncate() < 0 && msg.witness() < 0) {
            // Without a log a cut back waits for the opening (Opening.open); otherwise the early repairs are held now.
            m.rebase.tailMap(m.history.held(), false).forEach(m.ahead::put);
            m.rebase.clear();
            m.holdAhead();
        }
        return m.opening.open();
    }

    /** Entries of the history this member misses, from the recovery's source. */
    List<Runnable> onRepair(long viewId, List<Entry> entries) {
        long recovering = m.phase instanceof Phase.Frozen f ? f.view()
                : m.phase instanceof Phase.Catching c ? c.view() : -1;
        if (recovering != viewId) {
            return List.of();
        }
        boolean catching = m.phase instanceof Phase.Catching;
        if (!catching && m.disk != null && !m.damage.isEmpty()) {
            if (mend(entries)) {
                return reportAgain();
            }
        }
        boolean deferred = m.disk == null && (!catching || ((Phase.Catching) m.phase).truncate() >= 0
                || ((Phase.Catching) m.phase).witness() >= 0);
        for (Entry e : entries) {
            if (deferred) {
                m.rebase.put(e.gseq(), e);
            } else if (e.gseq() > m.history.held() || (m.disk != null && !catching)) {
                m.ahead.put(e.gseq(), e);
            }
        }
        if (deferred) {
            return catching ? m.opening.open() : List.of();
        }
        if (m.disk != null && !catching) {
            return List.of();   // held once the epoch says whether this member's tail is cut back first
        }
        m.holdAhead();
        return catching ? m.opening.open() : List.of();
    }

    /** The mend step's cut: its damaged entry there, and everything after it, was never committed. */
    List<Runnable> onMendCut(MemberId src, long viewId, long after) {
        if (!(m.phase instanceof Phase.Frozen f) || f.view() != viewId || !src.equals(f.coordinator()) || m.disk == null
                || m.damage.extent() <= after) {
            return List.of();
        }
        cutForMend(after);
        return reportAgain();
    }

    /**
     * The mend step: copies of damaged entries, from a member whose copy verifies. They are written to the log in
     * place of the damaged records (durably), the entries after them are held again, and the member reports anew.
     * Returns whether any of {@code entries} was for a damaged position (the member then reports again).
     */
    private boolean mend(List<Entry> entries) {
        List<Entry> fix = m.damage.fixes(entries);
        if (fix.isEmpty()) {
            return false;
        }
        m.damage.repaired(fix, m.disk.repair(fix), m.disk.loaded().from(), m.marks);
        m.holdBeyond();
        LOG.info("{}: mended {} damaged entries of its log from another replica's copies; {} damaged left", m.self,
                fix.size(), m.damage.size());
        return true;
    }

    /** Drops its log after {@code after} (the mend step's cut), and what it held or marked of it. */
    private void cutForMend(long after) {
        LOG.warn("{}: cuts its log after {} (was {}): its damaged entry {} has no copy that verifies at any replica "
                + "here, and cannot have been committed", m.self, after, m.damage.extent(), after + 1);
        m.cutLogForMend(after);
    }

    /** Sends this member's report again to the recovery it is frozen for (its log changed). */
    private List<Runnable> reportAgain() {
        Phase.Frozen f = (Phase.Frozen) m.phase;
        Wire.State again = report(f.view());
        return List.of(() -> m.net.state(f.coordinator(), again));
    }

    /**
     * As the source of view {@code view}'s recovery: the entries in ({@code from}, {@code upTo}] of this member's log.
     * Holding fewer is an error while that recovery is this member's; not once it installed a later view: it may
     * have opened a later epoch with a gap since, which cleared its log, and the targets drop a repair of a recovery
     * they left too (docs/simulator.md, "Also seen").
     */
    List<Entry> entries(long view, long from, long upTo) {
        List<Entry> out = new ArrayList<>(from < upTo ? m.log.subMap(from, false, upTo, true).values() : List.of());
        if (out.size() != upTo - from && m.disk != null) {
            // Those trimmed from memory once stable are in the log; the rest (some perhaps not logged yet) in memory.
            long inMemory = m.log.isEmpty() ? upTo + 1 : m.log.firstKey();
            List<Entry> merged = new ArrayList<>(m.disk.read(from, Math.min(upTo, inMemory - 1)));
            merged.addAll(out);
            out = merged;
        }
        if (out.size() != upTo - from && this.view != null && this.view.id() > view) {
            LOG.debug("{}: asked to repair ({}, {}] for view {}, left for view {}: holds {} of those entries", m.self,
                    from, upTo, view, this.view.id(), out.size());
        } else if (out.size() != upTo - from) {
            LOG.error("{}: asked to repair ({}, {}] but holds only {} of those entries", m.self, from, upTo,
                    out.size());
        }
        return out;
    }
}
