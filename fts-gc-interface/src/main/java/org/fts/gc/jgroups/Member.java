package org.fts.gc.jgroups;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.fts.gc.Epoch;
import org.fts.gc.GroupConfig;
import org.fts.gc.MemberId;
import org.fts.gc.View;
import org.fts.gc.internal.DeliveryPump;
import org.fts.gc.internal.EpochId;
import org.fts.gc.jgroups.Wire.Entry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
final class Member {
    /** What the member sends; {@link TotalOrder} implements it. */
    interface Net {
        void state(MemberId to, Wire.State s);

        /** To the coordinator of a recovery whose ballot this member cannot promise. */
        void refused(MemberId to, Wire.Refused r);

        void ack(EpochId epoch, long held);

        /** This member opened {@code epoch} as its sequencer: start ordering at {@code start}. */
        void sequencerOpen(EpochId epoch, long start);
    }

    private static final Logger LOG = LoggerFactory.getLogger(Member.class);
    private static final int ACK_EVERY = 512;

    private final MemberId self;
    private final GroupConfig config;
    private final DeliveryPump pump;
    private final Origin origin;
    private final Net net;
    /** This member's write-ahead log ({@code fts.durability=log}), or null. */
    private final DurableLog disk;
    /** The highest ballot this member promised a recovery (persisted with a log). */
    private long promised;
    /** The ballot that established {@code epoch}. */
    private long epochBallot;
    /** With a log: the last entry handed to it (entries held while catching up go to it once the epoch opens). */
    private long logged;

    private View view;
    private Phase phase = new Phase.Joining();
    private boolean fresh = true;
    private boolean synced;
    private EpochId epoch;
    private boolean epochFounding;
    private List<MemberId> epochMembers = List.of();
    private boolean shortcut;
    private long held;
    private long delivered;
    private long commitKnown;
    /** A durable member cut back for repairs from another epoch's history, not open yet: it reports no epoch. */
    private boolean foreign;
    /** Whether its state holds a broadcast (delivered, or a gap's); not delivered > 0, which a refounding sets. */
    private boolean applied;
    /** The last entry of the history the open epoch continues: delivered only once committed in this epoch. */
    private long tailEnd;
    private long lastAcked;
    private final TreeMap<Long, Entry> log = new TreeMap<>();
    /** Entries beyond {@code held + 1}: repairs arriving out of order. */
    private final TreeMap<Long, Entry> ahead = new TreeMap<>();
    /** ORDs of the epoch this member is about to open, overtaking its EPOCH. */
    private final TreeMap<Long, Entry> early = new TreeMap<>();
    private long earlyCommitted;
    /** Per origin, the highest oseq in the history up to {@code held}. */
    private final Map<MemberId, Long> marks = new HashMap<>();
    private long stashedRequest = -1;
    private long stashedBallot;
    private MemberId stashedFrom;
    /** Counts freezes and openings, so that the origin applies them in order ({@link Origin#resume}). */
    private long step;
    /** Null (the default) outside the protocol simulator: one field test per delivery. */
    private MemberTap tap;

    Member(MemberId self, GroupConfig config, DeliveryPump pump, Origin origin, Net net) {
        this(self, config, pump, origin, net, null);
    }

    /** @param disk the member's log, or null: with one, the member starts from what it holds */
    Member(MemberId self, GroupConfig config, DeliveryPump pump, Origin origin, Net net, DurableLog disk) {
        this.self = self;
        this.config = config;
        this.pump = pump;
        this.origin = origin;
        this.net = net;
        this.disk = disk;
        if (disk != null) {
            restore(disk.loaded());
        }
    }

    /**
     * A restarted member's standing, from its log: it holds the history it logged, its application starts from
     * the initial state at the log's base and is rebuilt by delivering the log again (a state of its own, so
     * synced), and it promised what it promised. Not fresh: its history counts at the next recovery.
     */
    private void restore(DurableLog.Loaded l) {
        DurableLog.EpochMeta m = l.meta();
        promised = m.promised();
        held = l.base();
        delivered = l.base();
        if (m.epochSeq() == null) {
            if (!l.entries().isEmpty()) {
                LOG.warn("{}: its log holds entries but no epoch: dropped", self);
                disk.truncateAfter(l.base());
            }
            logged = held;
            return;
        }
        for (Entry e : l.entries()) {
            log.put(e.gseq(), e);
            marks.merge(e.origin(), e.oseq(), Math::max);
            held = e.gseq();
        }
        logged = held;
        commitKnown = Math.max(l.base(), l.commitHint());
        epoch = new EpochId(m.epochView(), m.epochSeq());
        epochBallot = m.epochBallot();
        epochFounding = m.founding();
        epochMembers = m.members();
        fresh = false;
        synced = true;
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
        Wire.State report = report(viewId);
        LOG.debug("{}: frozen for view {}: {}", self, viewId, report);
        long at = ++step;
        return List.of(() -> origin.suspend(at), () -> net.state(coordinator, report));
    }

    private Wire.State report(long viewId) {
        long ballot = ((Phase.Frozen) phase).ballot();
        EpochId e = foreign ? null : epoch;
        return new Wire.State(viewId, ballot, fresh, synced, e == null ? 0 : epochBallot, e == null ? 0 : e.view(),
                e == null ? null : e.sequencer(), epochFounding, e == null ? List.of() : epochMembers, held, commitKnown,
                new HashMap<>(marks));
    }

    /** Promises {@code ballot}: with a log, durably, before the report that carries the promise leaves. */
    private void promise(long ballot) {
        promised = ballot;
        if (disk != null) {
            disk.writeMeta(meta());
        }
    }

    private DurableLog.EpochMeta meta() {
        return epoch == null ? new DurableLog.EpochMeta(promised, 0, 0, null, false, List.of())
                : new DurableLog.EpochMeta(promised, epochBallot, epoch.view(), epoch.sequencer(), epochFounding,
                epochMembers);
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
                m.refound(), m.provider(), m.marks(), m.ballot(), m.truncate());
        if (m.truncate() >= 0) {
            truncate(m.truncate(), m.marks());
        }
        if (disk != null) {
            holdAhead();   // repairs that came before the epoch
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
        for (Entry e : entries) {
            if (e.gseq() > held || (disk != null && !catching)) {
                ahead.put(e.gseq(), e);
            }
        }
        if (disk != null && !catching) {
            return List.of();   // held once the epoch says whether this member's tail is cut back first
        }
        holdAhead();
        return catching ? tryOpen() : List.of();
    }

    /** As the recovery's source: the entries in ({@code from}, {@code upTo}] of this member's log. */
    synchronized List<Entry> entries(long from, long upTo) {
        List<Entry> out = new ArrayList<>(log.subMap(from, false, upTo, true).values());
        if (out.size() != upTo - from && disk != null) {
            out = disk.read(from, upTo);   // trimmed from memory once stable: the log has them
        }
        if (out.size() != upTo - from) {
            LOG.error("{}: asked to repair ({}, {}] but holds only {} of those entries", self, from, upTo, out.size());
        }
        return out;
    }

    /** Opens the pending epoch once this member holds everything before it. */
    private List<Runnable> tryOpen() {
        Phase.Catching c = (Phase.Catching) phase;
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
                disk.truncateAfter(0);   // the log starts again at the new founding's first entry
                logged = held;
            }
        } else if (!gap && held < c.start() - 1) {
            return List.of();   // repairs to come
        }
        if (!gap && held > c.start() - 1) {
            LOG.error("{}: holds up to {} but epoch {} opens at {}: treated as a gap", self, held, c.epoch(), c.start());
            gap = true;
        }
        if (gap && disk != null) {
            // A logging member is repaired, never given a gap: its log must rebuild its state after a restart.
            org.fts.gc.FailStop.fatal(new IllegalStateException(self + ": a gap at epoch " + c.epoch()
                    + " for a member with a log; it stops rather than log a history it cannot replay"));
            return List.of();
        }
        if (gap) {
            applied = true;
            log.clear();
            held = c.start() - 1;
            delivered = held;
            marks.clear();
            marks.putAll(c.marks());
            synced = false;
        } else {
            if (!config.uniform()) {
                commitKnown = Math.max(commitKnown, held);   // agreed delivery: what it holds, it delivers
                deliverCommitted();
            }
            if (fresh) {
                synced = true;   // founding: the initial state is the group's
            }
        }
        epochFounding = fresh && !gap;
        fresh = false;
        epoch = c.epoch();
        epochMembers = c.members();
        if (!config.uniform()) {
            commitKnown = held;
        }
        // Uniform: the continued history's tail may be held by the source alone yet; it is delivered once the new
        // sequencer says a majority opened the epoch (docs/group-communication.md, "An epoch's tail").
        tailEnd = held;
        lastAcked = held;
        phase = new Phase.Open(c.epoch(), c.members());
        foreign = false;
        epochBallot = c.ballot();
        if (disk != null) {
            disk.writeMeta(meta());   // before anything of this epoch is acknowledged
            for (Entry e : log.subMap(logged, false, held, true).values()) {
                disk.append(e, commitKnown);
            }
            logged = held;
        }
        shortcut = !config.uniform() || (disk == null && !self.equals(epoch.sequencer())
                && GroupConfig.replicas(List.of(self, epoch.sequencer())) >= config.majority(c.members()));
        LOG.info("{}: opened epoch {} at {}{} ({} members)", self, epoch, c.start(),
                gap ? " with a gap (its state must be fetched)" : "", c.members().size());
        pump.epoch(new Epoch(epoch.view(), epoch.sequencer(), c.members(), gap, synced, synced ? null : c.provider()));
        if (tap != null) {
            tap.opened(epoch, c.start(), gap, c.refound(), synced ? null : c.provider());
        }
        Long own = marks.get(self);
        long mine = own == null ? 0 : own;
        for (Entry e : early.values()) {
            if (e.gseq() == held + 1) {
                hold(e);
            }
        }
        early.clear();
        commitKnown = Math.max(commitKnown, earlyCommitted);
        deliverCommitted();
        EpochId opened = epoch;
        long start = c.start();
        long confirmed = ackable();
        if (disk != null) {
            lastAcked = confirmed;   // the rest once its disk holds it
        }
        List<Runnable> after = new ArrayList<>();
        if (gap) {
            after.add(() -> origin.delivered(mine));   // those are in the history, delivered or not here
        }
        if (self.equals(opened.sequencer())) {
            after.add(() -> net.sequencerOpen(opened, start));
        }
        after.add(() -> net.ack(opened, confirmed));
        long at = ++step;
        after.add(() -> origin.resume(at, opened.sequencer()));
        return after;
    }

    // ================================ ordered entries ================================

    /** An ORD from {@code src}. Returns whether it advanced what this member holds (an ACK is due). */
    synchronized boolean onOrd(MemberId src, Wire.Ord o) {
        EpochId e = new EpochId(o.epochView(), src);
        if (phase instanceof Phase.Open open && open.epoch().equals(e)) {
            long before = held;
            accept(o.e());
            commitKnown = Math.max(commitKnown, o.committed());
            deliverCommitted();
            trim(o.stable());
            return held > before;
        }
        if ((phase instanceof Phase.Catching c && c.epoch().equals(e))
                || (phase instanceof Phase.Frozen f && f.view() == o.epochView() && src.equals(f.coordinator()))) {
            early.put(o.e().gseq(), o.e());   // the epoch this member is about to open
            earlyCommitted = Math.max(earlyCommitted, o.committed());
            return false;
        }
        LOG.debug("{}: dropped ORD {} of epoch {} in phase {}", self, o.e().gseq(), e, phase);
        return false;
    }

    /** The sequencer's own entry, held here before it is multicast; false if this member left that epoch. */
    synchronized boolean holdLocal(EpochId e, Entry entry) {
        if (!(phase instanceof Phase.Open open) || !open.epoch().equals(e) || entry.gseq() != held + 1) {
            return false;
        }
        hold(entry);
        deliverCommitted();
        return true;
    }

    /**
     * Everything up to {@code upTo} of epoch {@code e} is held by a majority; everything up to {@code stable}
     * by every member (this member's log keeps only what may still be needed for a repair).
     */
    synchronized void commit(EpochId e, long upTo, long stable) {
        if (phase instanceof Phase.Open open && open.epoch().equals(e)) {
            if (upTo > commitKnown) {
                commitKnown = upTo;
                deliverCommitted();
            }
            trim(stable);
        }
    }

    private void accept(Entry entry) {
        if (entry.gseq() <= held) {
            return;   // a duplicate
        }
        if (entry.gseq() != held + 1) {
            // Cannot happen over FIFO channels; held back rather than held out of order.
            LOG.error("{}: ORD {} after {}: FIFO from the sequencer was broken", self, entry.gseq(), held);
            ahead.put(entry.gseq(), entry);
            return;
        }
        hold(entry);
        holdAhead();
    }

    private void holdAhead() {
        for (Entry next = ahead.remove(held + 1); next != null; next = ahead.remove(held + 1)) {
            hold(next);
        }
        ahead.headMap(held, true).clear();
    }

    private void hold(Entry e) {
        held = e.gseq();
        log.put(e.gseq(), e);
        marks.merge(e.origin(), e.oseq(), Math::max);
        if (disk != null && phase instanceof Phase.Open) {
            disk.append(e, commitKnown);
            logged = held;
        }
    }

    /**
     * A durable member of another epoch than the recovery's source: its tail after {@code t} (beyond its commit
     * point) may not be in the history, so it is dropped, from the log too, before any repair is held; it takes
     * the source's marks, which its repairs bring it up to. Until it opens the epoch, it reports no epoch: what it
     * holds after {@code t} is of another epoch's history than the one it opened.
     */
    private void truncate(long t, Map<MemberId, Long> sourceMarks) {
        if (held > t) {
            log.tailMap(t, false).clear();
            held = t;
            if (logged > t) {
                disk.truncateAfter(t);
                logged = t;
            }
        }
        if (delivered > held) {
            LOG.error("{}: delivered {} but its history is cut back to {}", self, delivered, held);
        }
        marks.clear();
        marks.putAll(sourceMarks);
        foreign = true;
    }

    /** What this member may acknowledge: what it holds, and with a log, what its disk holds of that. */
    private long ackable() {
        return disk == null ? held : Math.min(held, disk.durable());
    }

    private void deliverCommitted() {
        long limit = !(phase instanceof Phase.Open) || (shortcut && commitKnown >= tailEnd) ? held
                : Math.min(held, commitKnown);
        while (delivered < limit) {
            Entry e = log.get(delivered + 1);
            if (e == null) {
                LOG.error("{}: entry {} missing from the log (held {}, delivered {})", self, delivered + 1, held,
                        delivered);
                return;
            }
            delivered = e.gseq();
            applied = true;
            if (e.origin().equals(self)) {
                origin.delivered(e.oseq());
            }
            if (tap != null) {
                tap.delivered(e.gseq(), e.origin(), e.payload());
            }
            pump.broadcast(e.origin(), e.payload().clone());   // the log keeps the original for repairs
        }
    }

    private void trim(long stable) {
        long upTo = Math.min(stable, delivered);
        if (upTo > 0 && !log.isEmpty() && log.firstKey() <= upTo) {
            log.headMap(upTo, true).clear();
        }
    }

    /** The ACK this member owes its sequencer, or null: every batch under uniform delivery, else every 512. */
    synchronized long[] ackDue(boolean always) {
        long ackable = ackable();
        if (!(phase instanceof Phase.Open) || ackable <= lastAcked
                || !(always || config.uniform() || ackable - lastAcked >= ACK_EVERY)) {
            return null;
        }
        lastAcked = ackable;
        return new long[] {epoch.view(), ackable};
    }

    /** What this member acknowledged or may acknowledge at once (the sequencer's own count at an opening). */
    synchronized long acknowledgeable() {
        return ackable();
    }

    /** The last entry this member knows a majority holds (the new sequencer's floor at an opening). */
    synchronized long commitKnown() {
        return commitKnown;
    }

    synchronized EpochId epoch() {
        return phase instanceof Phase.Open open ? open.epoch() : null;
    }

    /** The application installed a state: this member holds the history again (unless a gap is queued). */
    synchronized void synced() {
        if (pump.noGapPending() && !fresh) {
            synced = true;
        }
    }

    /** For the protocol simulator only: observe this member ({@link MemberTap}). */
    synchronized void tap(MemberTap t) {
        tap = t;
    }

    synchronized Map<MemberId, Long> marks() {
        return new HashMap<>(marks);
    }

    synchronized int logSize() {
        return log.size();
    }

    /** One line for diagnostics: where this member stands. */
    synchronized String describe() {
        return "phase=" + phase + " held=" + held + " delivered=" + delivered + " commitKnown=" + commitKnown
                + " synced=" + synced + " shortcut=" + shortcut + " early=" + early.size() + " ahead=" + ahead.size();
    }

    synchronized Phase phase() {
        return phase;
    }
}
