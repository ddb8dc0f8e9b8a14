package org.fts.order;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.fts.gc.Epoch;
import org.fts.gc.GroupConfig;
import org.fts.gc.MemberId;
import org.fts.gc.View;
import org.fts.gc.internal.DeliveryPump;
import org.fts.gc.internal.EpochId;
import org.fts.order.Wire.Entry;

/**
 * The member role of {@link TotalOrder}: holds the entries of the epoch it follows, delivers them once
 * committed, and takes part in recoveries. Its {@link Phase} says where it stands; each message moves it by
 * one method. Guarded by this object's monitor, the last in {@link TotalOrder}'s lock order: methods return
 * what to send, and the caller sends it after leaving the monitor.
 *
 * <p>Numbers: {@code held} is the last entry of the history this member holds (contiguously), {@code
 * delivered} the last it handed to the application, {@code commitKnown} the last its sequencer said a majority
 * holds. Entries are numbered along the whole history (gseq); an epoch opens at the number after the last
 * entry of the history it continues.
 */
final class Member extends MemberDisk {
    /** What the member sends; {@link TotalOrder} implements it. */
    interface Net {
        void state(MemberId to, Wire.State s);

        /** To the coordinator of a recovery whose ballot this member cannot promise. */
        void refused(MemberId to, Wire.Refused r);

        void ack(EpochId epoch, long held);

        /** This member opened {@code epoch} as its sequencer: start ordering at {@code start}. */
        void sequencerOpen(EpochId epoch, long start);
    }

    /** @param disk the member's log, or null: with one, the member starts from what it holds */
    Member(MemberId self, GroupConfig config, DeliveryPump pump, Origin origin, Net net, MemberLog disk,
           Ordering ordering) {
        super(self, config, pump, origin, net, disk, ordering == Ordering.OFFLOAD);
        if (disk != null) {
            restore(disk.loaded());
        }
    }

    // ================================ read barriers (docs/reads.md) ================================

    /** {@code barriers} are ready once this member delivered up to {@code position}, if before {@code deadline}. */
    synchronized void readsAt(long position, List<org.fts.gc.ReadBarrier> barriers, long deadline) {
        reads.add(position, delivered, barriers, deadline, pump);
    }

    /** The read barriers past their deadline (all of them with {@code Long.MAX_VALUE}): the caller refuses them. */
    synchronized List<org.fts.gc.ReadBarrier> expireReads(long now) {
        return reads.isEmpty() ? List.of() : reads.expire(now);
    }

    // ================================ views and recoveries ================================

    /** A view was installed here; answers a recovery request that arrived before it. */
    synchronized List<Runnable> viewChanged(View v) {
        view = v;
        pump.view(v);
        if (stashedRequest == v.id() && v.coordinator().equals(stashedFrom)) {
            stashedRequest = -1;
            return freeze(v, stashedBallot);
        }
        if (stashedRequest >= 0 && stashedRequest <= v.id()) {
            stashedRequest = -1;
        }
        return List.of();
    }

    /** The coordinator of view {@code viewId} opens its recovery. */
    synchronized List<Runnable> onStateReq(MemberId src, long viewId, long ballot) {
        if (view == null || viewId > view.id()) {
            stashedRequest = viewId;   // answered once that view is installed here
            stashedBallot = ballot;
            stashedFrom = src;
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
        if (phase instanceof Phase.Frozen f && f.view() == viewId) {
            if (ballot < f.ballot()) {
                return List.of();   // an older attempt of this recovery
            }
            if (ballot > f.ballot()) {   // the coordinator asks again with a higher ballot (another member refused)
                promise(ballot);
                phase = new Phase.Frozen(viewId, f.members(), coordinator, ballot);
            }
            Wire.State again = report(viewId);   // a repeated request (its report may have been lost): the same
            return List.of(() -> net.state(coordinator, again));
        }
        if (phase instanceof Phase.Catching c && c.view() == viewId || phase instanceof Phase.Blocked b
                && b.view() == viewId || phase instanceof Phase.Open o && o.epoch().view() == viewId) {
            return List.of();   // a repeated request that this recovery's outcome overtook
        }
        if (disk != null && ballot <= promised) {
            // Paxos' promise: it took part in a recovery with this ballot or a higher one (before a restart of
            // the group, whose views JGroups numbers from 1 again), so the coordinator must ask with a higher one.
            // Without a log, ballots are view ids, which increase at every member while the group lives.
            Wire.Refused no = new Wire.Refused(viewId, ballot, promised);
            LOG.info("{}: recovery of view {} asks with ballot {}, but it promised {}", self, viewId, ballot, promised);
            return List.of(() -> net.refused(coordinator, no));
        }
        promise(ballot);
        phase = new Phase.Frozen(viewId, v.members(), coordinator, ballot);
        early.clear();
        earlyCommitted = 0;
        ahead.clear();
        rebase.clear();
        gapOwn = -1;   // the next epoch says again what its history holds
        Wire.State report = report(viewId);
        LOG.debug("{}: frozen for view {}: {}", self, viewId, report);
        long at = ++step;
        return List.of(() -> origin.suspend(at), () -> net.state(coordinator, report));
    }

    private Wire.State report(long viewId) {
        long ballot = ((Phase.Frozen) phase).ballot();
        Wire.Opened e = opened;
        long last = foreign ? foreignUpTo : damaged.isEmpty() ? held : Math.max(held, extent);
        return new Wire.State(viewId, ballot, fresh, synced, e, foreign, last,
                // what it knows committed, never beyond what it holds (a lagging member may know of more)
                Math.min(config.uniform() ? Math.max(commitKnown, deliveredHere) : commitKnown, last),
                new HashMap<>(marks),
                base(), delivered, damagedSpans());
    }

    /**
     * The last entry this member can no longer give for a repair: with a log, what compaction left (kept until it
     * opens an epoch); without one, what its memory trimmed once every member held it.
     */
    private long base() {
        long inMemory = log.isEmpty() ? held : Math.min(held, log.firstKey() - 1);
        if (disk != null) {
            // what the disk or the memory still holds (and compaction keeps what the disk holds of that)
            return Math.max(damagedBase, Math.min(inMemory, Math.min(held, disk.pinBase())));
        }
        return inMemory;
    }

    /** Promises {@code ballot}: with a log, durably, before the report that carries the promise leaves. */
    private void promise(long ballot) {
        promised = ballot;
        if (disk != null) {
            disk.writeMeta(meta());
        }
    }

    private DurableLog.EpochMeta meta() {
        Wire.Opened o = opened;
        return o == null ? DurableLog.EpochMeta.NONE.promising(promised)
                : new DurableLog.EpochMeta(promised, o.ballot(), o.id().view(), o.id().sequencer(), o.founding(),
                o.members(), o.start(), o.lineage());
    }

    /** The highest ballot this member promised. */
    synchronized long promised() {
        return promised;
    }

    /** The recovery of {@code viewId} found the view not primary. */
    synchronized void onNotPrimary(MemberId src, long viewId, String reason) {
        if (!(phase instanceof Phase.Frozen f) || f.view() != viewId || !src.equals(f.coordinator())) {
            return;
        }
        phase = new Phase.Blocked(viewId, reason);
        LOG.info("{}: view {} is not primary: {}", self, viewId, reason);
        pump.notPrimary(view, reason);
    }

    /** The recovery of {@code m.view()} established an epoch, sequenced by {@code src}. */
    synchronized List<Runnable> onEpoch(MemberId src, Wire.EpochMsg m) {
        if (!(phase instanceof Phase.Frozen f) || f.view() != m.view() || !src.equals(f.coordinator())) {
            return List.of();
        }
        phase = new Phase.Catching(m.view(), new EpochId(m.view(), src), f.members(), m.start(), m.gap(),
                m.refound(), m.provider(), m.marks(), m.ballot(), m.truncate(), m.lineage(), m.witness());
        if (disk != null) {
            if (m.truncate() >= 0) {
                truncate(m.truncate(), m.marks());
            }
            holdAhead();   // repairs that came before the epoch
        } else if (m.truncate() < 0 && m.witness() < 0) {
            // Without a log a cut back waits for the opening (tryOpen); otherwise the early repairs are held now.
            rebase.tailMap(held, false).forEach(ahead::put);
            rebase.clear();
            holdAhead();
        }
        return tryOpen();
    }

    /** Entries of the history this member misses, from the recovery's source. */
    synchronized List<Runnable> onRepair(long viewId, List<Entry> entries) {
        long recovering = phase instanceof Phase.Frozen f ? f.view()
                : phase instanceof Phase.Catching c ? c.view() : -1;
        if (recovering != viewId) {
            return List.of();
        }
        boolean catching = phase instanceof Phase.Catching;
        if (!catching && disk != null && !damaged.isEmpty()) {
            if (mend(entries)) {
                return reportAgain();
            }
        }
        boolean deferred = disk == null && (!catching || ((Phase.Catching) phase).truncate() >= 0
                || ((Phase.Catching) phase).witness() >= 0);
        for (Entry e : entries) {
            if (deferred) {
                rebase.put(e.gseq(), e);
            } else if (e.gseq() > held || (disk != null && !catching)) {
                ahead.put(e.gseq(), e);
            }
        }
        if (deferred) {
            return catching ? tryOpen() : List.of();
        }
        if (disk != null && !catching) {
            return List.of();   // held once the epoch says whether this member's tail is cut back first
        }
        holdAhead();
        return catching ? tryOpen() : List.of();
    }

    /** The mend step's cut: its damaged entry there, and everything after it, was never committed. */
    synchronized List<Runnable> onMendCut(MemberId src, long viewId, long after) {
        if (!(phase instanceof Phase.Frozen f) || f.view() != viewId || !src.equals(f.coordinator()) || disk == null
                || extent <= after) {
            return List.of();
        }
        cutForMend(after);
        return reportAgain();
    }

    /** Sends this member's report again to the recovery it is frozen for (its log changed). */
    private List<Runnable> reportAgain() {
        Phase.Frozen f = (Phase.Frozen) phase;
        Wire.State again = report(f.view());
        return List.of(() -> net.state(f.coordinator(), again));
    }

    /** As the recovery's source: the entries in ({@code from}, {@code upTo}] of this member's log. */
    synchronized List<Entry> entries(long from, long upTo) {
        List<Entry> out = new ArrayList<>(from < upTo ? log.subMap(from, false, upTo, true).values() : List.of());
        if (out.size() != upTo - from && disk != null) {
            // Those trimmed from memory once stable are in the log; the rest (some perhaps not logged yet) in memory.
            long inMemory = log.isEmpty() ? upTo + 1 : log.firstKey();
            List<Entry> merged = new ArrayList<>(disk.read(from, Math.min(upTo, inMemory - 1)));
            merged.addAll(out);
            out = merged;
        }
        if (out.size() != upTo - from) {
            LOG.error("{}: asked to repair ({}, {}] but holds only {} of those entries", self, from, upTo, out.size());
        }
        return out;
    }

    /** Opens the pending epoch once this member holds everything before it. */
    private List<Runnable> tryOpen() {
        Phase.Catching c = (Phase.Catching) phase;
        if (disk == null && c.truncate() >= 0) {
            // A cut back without a log, made as it opens once every repair is here: if the recovery is interrupted
            // first, this member still holds its own epoch's history, and reports it.
            long t = c.truncate();
            if (t < c.start() - 1 && rebase.subMap(t, false, c.start(), false).size() < c.start() - 1 - t) {
                return List.of();   // repairs to come
            }
            truncate(t, c.marks());
            if (t < c.start() - 1) {
                rebase.subMap(t, false, c.start(), false).values().forEach(this::hold);
            }
            rebase.clear();
        }
        boolean gap = c.gap();
        boolean refound = c.refound();
        if (refound && applied) {
            gap = true;   // it delivered (agreed delivery) what the group does not keep: its state is not the initial one
            refound = false;
        }
        if (refound) {
            log.clear();   // held, never committed: dropped
            held = c.start() - 1;
            delivered = held;
            marks.clear();
            fresh = true;  // as a founder: the initial state is the group's
            if (disk != null) {
                disk.restartAt(held, Map.of(), true);   // the log starts again at the founding's first entry
                logged = held;
                beyond.clear();
                damaged.clear();
                extent = held;
                deliveredMarks.clear();
            }
        } else if (!gap && held < c.start() - 1) {
            return List.of();   // repairs to come
        }
        if (!gap && held > c.start() - 1) {
            LOG.error("{}: holds up to {} but epoch {} opens at {}: treated as a gap", self, held, c.epoch(), c.start());
            gap = true;
        }
        if (gap && disk == null && c.witness() >= 0) {
            if (rebase.subMap(c.witness(), false, c.start(), false).size() < c.start() - 1 - c.witness()) {
                return List.of();   // the tail it witnesses is still to come
            }
        }
        if (gap) {
            applied = true;
            log.clear();
            if (disk == null && c.witness() >= 0) {
                log.putAll(rebase.subMap(c.witness(), false, c.start(), false));   // a copy, not delivered here
                rebase.clear();
            }
            held = c.start() - 1;
            delivered = held;
            marks.clear();
            marks.putAll(c.marks());
            synced = false;
            if (disk != null) {
                // The source's log no longer holds what it misses (compacted behind a checkpoint): its log restarts
                // here, and rebuilds its state only once the application checkpoints the state it fetches.
                disk.restartAt(held, marks, false);
                logged = held;
                beyond.clear();
                damaged.clear();
                extent = held;
                rooted = false;
                rootFloor = held;
                deliveredMarks.clear();
                deliveredMarks.putAll(marks);
                sinceCheckpoint = 0;
            }
        } else {
            if (!config.uniform()) {
                commitKnown = Math.max(commitKnown, held);   // agreed delivery: what it holds, it delivers
                deliverCommitted();
            }
            if (fresh) {
                synced = true;   // founding: the initial state is the group's
            }
        }
        opened = new Wire.Opened(c.ballot(), c.epoch(), fresh && !gap, c.members(), c.start(), c.lineage());
        EpochId epoch = c.epoch();
        fresh = false;
        if (!config.uniform()) {
            commitKnown = held;
        }
        // Uniform: the continued history's tail may be held by the source alone yet; it is delivered once the new
        // sequencer says a majority opened the epoch (docs/group-communication.md, "An epoch's tail").
        tailEnd = held;
        lastAcked = held;
        repeatedAt = -1;
        phase = new Phase.Open(c.epoch(), c.members());
        foreign = false;
        if (disk != null) {
            disk.writeMeta(meta());   // before anything of this epoch is acknowledged
            for (Entry e : logged < held ? log.subMap(logged, false, held, true).values() : List.<Entry>of()) {
                disk.append(e, commitKnown);
            }
            logged = held;
        }
        // The shortcut (the sequencer held an ORD before sending it) does not hold under offload: origins multicast.
        shortcut = !config.uniform() || (disk == null && !offload && !self.equals(epoch.sequencer())
                && GroupConfig.replicas(List.of(self, epoch.sequencer())) >= config.majority(c.members()));
        durablePair = config.uniform() && disk != null && !offload && !self.equals(epoch.sequencer())
                && GroupConfig.replicas(List.of(self, epoch.sequencer())) >= config.majority(c.members());
        // What the sequencer said before this member opened is not kept: its repeated ACK (the timer's) brings the
        // sequencer's COMMIT again, with what its disk holds (Acks.update, the repeat).
        sequencerHolds = 0;
        LOG.info("{}: opened epoch {} at {}{} ({} members)", self, epoch, c.start(),
                gap ? " with a gap (its state must be fetched)" : "", c.members().size());
        pump.epoch(new Epoch(epoch.view(), epoch.sequencer(), c.members(), gap, synced, synced ? null : c.provider()));
        if (tap != null) {
            tap.opened(epoch, c.ballot(), c.start(), gap, c.refound(), synced ? null : c.provider());
        }
        Long own = marks.get(self);
        long mine = own == null ? 0 : own;
        for (Entry e : early.values()) {   // under offload, from several origins: perhaps with holes yet
            if (e.gseq() > held) {
                ahead.put(e.gseq(), e);
            }
        }
        early.clear();
        holdAhead();
        commitKnown = Math.max(commitKnown, earlyCommitted);
        deliverCommitted();
        long start = c.start();
        long confirmed = ackable();
        if (disk != null) {
            lastAcked = confirmed;   // the rest once its disk holds it
            disk.unpin();   // the repairs it was asked for were read before its epoch came (FIFO from the coordinator)
        }
        List<Runnable> after = new ArrayList<>();
        if (gap) {
            // Those are in the history this epoch continues: the origin is told once that history is committed
            // (deliverCommitted), or at once if it already is.
            gapOwn = mine;
            gapTailEnd = start - 1;
            deliverCommitted();
        }
        if (self.equals(epoch.sequencer())) {
            after.add(() -> net.sequencerOpen(epoch, start));
        }
        after.add(() -> net.ack(epoch, confirmed));
        long at = ++step;
        after.add(() -> origin.resume(at, epoch));
        return after;
    }
}
