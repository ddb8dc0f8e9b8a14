package org.fts.order;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.fts.gc.GroupConfig;
import org.fts.gc.MemberId;
import org.fts.gc.View;
import org.fts.gc.internal.DeliveryPump;
import org.fts.gc.internal.EpochId;
import org.fts.order.Wire.Entry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The member role of {@link TotalOrder}: holds the entries of the epoch it follows, delivers them once
 * committed, and takes part in recoveries. Its {@link Phase} says where it stands; each message moves it by
 * one method of one of its roles, small classes that act on this member's state: {@link Following} (the open
 * epoch's entries, their delivery and acknowledgements), {@link Recovery} (freezing, reporting, taking an epoch
 * and its repairs, mending a damaged log), {@link Opening} (opening the epoch a recovery established), and
 * {@link Restart} (a durable member's standing from its log). Its parts with rules of their own are objects of
 * their own: {@link HistoryCounters} (what it holds, delivers and knows committed, each step checked), {@link
 * AckSchedule}, {@link CheckpointOffers}, {@link LogDamage}; what belongs to one epoch is its {@link Phase.Open}
 * record's. A role
 * moves this member's standing by its named transitions ({@link #enter}, {@link #promise}, {@link #opened}), never by
 * assigning its fields. Guarded by this object's monitor, the last in {@link TotalOrder}'s lock order: the roles run
 * under it, and methods return what to send, which the caller sends after leaving the monitor.
 *
 * <p>Entries are numbered along the whole history (gseq); an epoch opens at the number after the last entry of the
 * history it continues.
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

    static final Logger LOG = LoggerFactory.getLogger(Member.class);

    // ================================ what it is ================================

    final MemberId self;
    final GroupConfig config;
    final DeliveryPump pump;
    final Origin origin;
    final Net net;
    /** This member's write-ahead log ({@code fts.durability=log}), or null. */
    final MemberLog disk;
    /** {@link Ordering#OFFLOAD}: entries arrive from their origins, so out of position order. */
    final boolean offload;

    // ================================ where it stands in the group's recoveries ================================

    /** The highest ballot this member promised a recovery (persisted with a log). */
    long promised;
    /**
     * The last epoch this member opened, as it reports it to a recovery and writes it in its log's meta (its id,
     * the ballot that established it, whether it founded the group, its members, its first position, and the older
     * epochs whose history it continued, nearest first); null before it opened any. While {@link Phase.Open}, the
     * phase's own record: the epoch and its members are kept once.
     */
    Wire.Opened opened;
    Phase phase = new Phase.Joining();
    /** Counts freezes and openings, so that the origin applies them in order ({@link Origin#resume}). */
    long step;
    /** It holds none of the group's history (a new member, or one founding again): it founds with the initial state. */
    boolean fresh = true;
    /** Whether its application holds the group's state (not while it fetches one, or after it fell behind). */
    boolean synced;
    /** A durable member cut back for repairs from another epoch's history, not open yet: it reports no epoch. */
    boolean foreign;
    /** While {@code foreign}: how far its log is still its last epoch's history (it reports only that much). */
    long foreignUpTo;
    /** A recovery it has not opened cut it back ({@link #truncate}): its marks are that recovery's source's. */
    boolean cutBack;
    /**
     * Its log may have held, and acknowledged, entries from here on that a power loss damaged and its recovery cut
     * ({@link DurableLog.Loaded#uncertainFrom}); {@link Long#MAX_VALUE}: none. Reported until an epoch opens.
     */
    long mayHoldFrom = Long.MAX_VALUE;

    // ================================ the history it holds and delivers ================================

    /** What it holds, delivered, knows committed, logged and replays. */
    final HistoryCounters history = new HistoryCounters();
    /** The last read lease this member granted runs until then, on the read clock ({@link #grantLease}). */
    long leaseGrantedUntil;
    final AckSchedule acks;
    /** The entries it holds in memory (trimmed once every member holds them), by position. */
    final TreeMap<Long, Entry> log = new TreeMap<>();
    /** Read barriers waiting for this member to deliver up to their confirmed position. */
    final org.fts.gc.internal.ReadWaiters reads = new org.fts.gc.internal.ReadWaiters();
    /** Entries beyond {@code held + 1}: repairs arriving out of order. */
    final TreeMap<Long, Entry> ahead = new TreeMap<>();
    /**
     * Without a log: repairs that came before the epoch said whether this member is cut back first, and those of a
     * cut back, which it makes only as it opens (until then it still holds, and reports, its own epoch's history).
     */
    final TreeMap<Long, Entry> rebase = new TreeMap<>();
    /** ORDs of the epoch this member is about to open, overtaking its EPOCH. */
    final TreeMap<Long, Entry> early = new TreeMap<>();
    /** Per origin, the highest oseq in the history up to {@code held}. */
    final Map<MemberId, Long> marks = new HashMap<>();

    // ================================ with a log ================================

    /** With a log: its checkpoints, and whether its log rebuilds its state; null without one. */
    final CheckpointOffers checkpoints;
    /** With a log: what its log holds beyond what it holds (damaged records, the entries after them). */
    final LogDamage damage;
    /** Told of every delivery and opening (the shipped {@link EpochCounts}, or the simulator's checks). */
    final MemberObserver observer;

    /** Its roles: the open epoch's entries; recoveries; opening an epoch. Each acts on this member's state. */
    final Following following;
    final Recovery recovery;
    final Opening opening;

    /** @param disk the member's log, or null: with one, the member starts from what it holds */
    Member(MemberId self, GroupConfig config, DeliveryPump pump, Origin origin, Net net, MemberLog disk,
           Ordering ordering, MemberObserver observer) {
        this.observer = observer;
        this.offload = ordering == Ordering.OFFLOAD;
        this.self = self;
        this.config = config;
        this.pump = pump;
        this.origin = origin;
        this.net = net;
        this.disk = disk;
        this.damage = new LogDamage(self);
        this.acks = new AckSchedule(config);
        this.checkpoints = disk == null ? null : new CheckpointOffers(self, disk, pump, this::checkpointed);
        this.following = new Following(this);
        this.recovery = new Recovery(this);
        this.opening = new Opening(this);
        if (disk != null) {
            Restart.Standing r = Restart.restore(this, disk.loaded());
            promised = r.promised();
            if (r.opened() != null) {   // not fresh: its history counts at the next recovery
                opened = r.opened();
                fresh = false;
                synced = r.synced();
                foreign = r.foreign();
                foreignUpTo = r.foreignUpTo();
                mayHoldFrom = r.mayHoldFrom();
            }
        }
    }

    // ================================ messages: each moves the member by one method of a role ================


    synchronized boolean onOrd(MemberId src, Wire.Ord o) {
        return following.onOrd(src, o);
    }

    /** After a batch of received messages, once its ACK is sent: what its ORDs committed ({@link Following#onOrd}). */
    synchronized void deliverAfterAck() {
        following.deliverAfterAck();
    }

    synchronized boolean onData(Wire.Data d) {
        return following.onData(d);
    }

    synchronized boolean holdLocal(EpochId e, Entry entry) {
        return following.holdLocal(e, entry);
    }

    synchronized void commit(EpochId e, long upTo, long stable, long seqHolds) {
        following.commit(e, upTo, stable, seqHolds);
    }

    synchronized void durableAdvanced() {
        following.durableAdvanced();
    }

    synchronized AckSchedule.Due ackDue(boolean always) {
        return following.ackDue(always);
    }

    synchronized List<Runnable> viewChanged(View v) {
        return recovery.viewChanged(v);
    }

    synchronized List<Runnable> onStateReq(MemberId src, long viewId, long ballot) {
        return recovery.onStateReq(src, viewId, ballot);
    }

    synchronized void onNotPrimary(MemberId src, long viewId, String reason) {
        recovery.onNotPrimary(src, viewId, reason);
    }

    synchronized List<Runnable> onEpoch(MemberId src, Wire.EpochMsg msg) {
        return recovery.onEpoch(src, msg);
    }

    synchronized List<Runnable> onRepair(long viewId, List<Entry> entries) {
        return recovery.onRepair(viewId, entries);
    }

    synchronized List<Runnable> onMendCut(MemberId src, long viewId, long after) {
        return recovery.onMendCut(src, viewId, after);
    }

    synchronized List<Entry> entries(long view, long from, long upTo) {
        return recovery.entries(view, from, upTo);
    }

    // ================================ its state's mechanics, for the roles ================================

    void holdAhead() {
        for (Entry next = ahead.remove(history.held() + 1); next != null; next = ahead.remove(history.held() + 1)) {
            hold(next);
        }
        ahead.headMap(history.held(), true).clear();
    }

    void hold(Entry e) {
        history.hold(e.gseq());
        log.put(e.gseq(), e);
        marks.merge(e.origin(), e.oseq(), Math::max);
        if (disk != null && phase instanceof Phase.Open) {
            disk.append(e, history.commitKnown());
            history.logged(e.gseq());
        }
    }

    /**
     * A durable member of another epoch than the recovery's source: its tail after {@code t} (beyond its commit
     * point) may not be in the history, so it is dropped, from the log too, before any repair is held; it takes
     * the source's marks, which its repairs bring it up to. Until it opens the epoch, it reports no epoch: what it
     * holds after {@code t} is of another epoch's history than the one it opened.
     */
    void truncate(long t, Map<MemberId, Long> sourceMarks) {
        if (history.held() > t || damage.extent() > t) {
            LOG.info("{}: cuts its history back from {} to {} (its commit point): the new epoch continues another "
                    + "epoch's history, which repairs it from there", self, Math.max(history.held(), damage.extent()),
                    t);
            log.tailMap(t, false).clear();
            boolean logCut = history.logged() > t;
            history.cutAfter(t);
            if (logCut) {
                disk.truncateAfter(t);
            }
        }
        damage.cutAfter(t);   // with its damaged entries after the cut, if any
        if (history.delivered() > history.held()) {
            LOG.error("{}: delivered {} but its history is cut back to {}", self, history.delivered(), history.held());
        }
        marks.clear();
        marks.putAll(sourceMarks);
        cutBack = true;
        if (!foreign) {
            foreignUpTo = Math.min(t, history.held());
        }
        foreign = true;
    }

    /** Holds the entries after a repaired damage, up to the next damaged one. */
    void holdBeyond() {
        for (Entry next = damage.take(history.held() + 1); next != null; next = damage.take(history.held() + 1)) {
            log.put(next.gseq(), next);
            history.hold(next.gseq());
        }
    }

    /**
     * The mend step's cut: drops its log after {@code after}, and what it held or marked of it (its marks are its
     * log's again).
     */
    void cutLogForMend(long after) {
        disk.truncateAfter(after);
        log.tailMap(after, false).clear();
        damage.cutAfter(after);
        history.cutLogAfter(after);
        marks.clear();
        marks.putAll(damage.rootMarks());
        log.values().forEach(e -> marks.merge(e.origin(), e.oseq(), Math::max));
        damage.markInto(marks);
        cutBack = false;
    }

    // ================================ its standing's transitions, for the roles ================================

    /**
     * Moves to phase {@code next}, checking the step: an epoch opens only from catching up to it, a recovery's outcome
     * (catching up, or blocked) comes only to a frozen member, and any phase freezes for a recovery.
     */
    void enter(Phase next) {
        boolean legal = next instanceof Phase.Frozen
                || (next instanceof Phase.Catching || next instanceof Phase.Blocked) && phase instanceof Phase.Frozen
                || next instanceof Phase.Open && phase instanceof Phase.Catching;
        if (!legal) {
            throw new IllegalStateException(self + ": " + phase + " cannot move to " + next);
        }
        phase = next;
    }

    /** Promises {@code ballot}: with a log, durably, before the report that carries the promise leaves. */
    void promise(long ballot) {
        promised = ballot;
        if (disk != null) {
            disk.writeMeta(meta());
        }
    }

    /** The next freeze or opening, in the order the origin applies them. */
    long nextStep() {
        return ++step;
    }

    /** A founding again: it holds none of the group's history, and founds with the initial state. */
    void foundsAgain() {
        fresh = true;
    }

    /** Opening with a gap: its application fetches the group's state. */
    void fetchesState() {
        synced = false;
    }

    /** Founding: its initial state is the group's. */
    void foundingHoldsState() {
        synced = true;
    }

    /**
     * Opens the epoch of {@code open}: its standing in recoveries is that epoch's (it founds no more, reports its own
     * history, its marks are its history's: repaired up to the source's, or the source's own), and with a log, its
     * meta says so before anything of the epoch is acknowledged.
     */
    void opened(Phase.Open open) {
        enter(open);
        opened = open.opened();
        fresh = false;
        foreign = false;
        cutBack = false;
        if (disk != null) {
            disk.writeMeta(meta());
            if (mayHoldFrom != Long.MAX_VALUE) {   // the recovery that opened it counted it (Mend)
                disk.settleUncertain();
                mayHoldFrom = Long.MAX_VALUE;
            }
        }
    }

    /** What this member may acknowledge: what it holds, and with a log, what its disk holds of that. */
    long ackable() {
        return disk == null ? history.held() : Math.min(history.held(), disk.durable());
    }

    /** With a log: offers the application a checkpoint, if one is due ({@link CheckpointOffers#offer}). */
    void offerCheckpoint() {
        if (checkpoints != null) {
            checkpoints.offer(history.delivered(), synced);
        }
    }

    private synchronized void checkpointed(long position, boolean written) {
        if (checkpoints.answered(position, written)) {
            offerCheckpoint();   // one from before its gap
        }
    }

    /** What its log's meta says: its promise and the last epoch it opened. */
    DurableLog.EpochMeta meta() {
        Wire.Opened o = opened;
        return o == null ? DurableLog.EpochMeta.NONE.promising(promised)
                : new DurableLog.EpochMeta(promised, o.ballot(), o.id().view(), o.id().sequencer(), o.founding(),
                o.members(), o.start(), o.lineage());
    }

    // ================================ read barriers and queries ================================

    /** What this member acknowledged or may acknowledge at once (the sequencer's own count at an opening). */
    synchronized long acknowledgeable() {
        return ackable();
    }

    /** Whether this member's state holds a broadcast (it is not the initial state). */
    synchronized boolean holdsBroadcasts() {
        return history.applied();
    }

    /** The last entry this member knows a majority holds (the new sequencer's floor at an opening). */
    synchronized long commitKnown() {
        return history.commitKnown();
    }

    synchronized EpochId epoch() {
        return phase instanceof Phase.Open open ? open.epoch() : null;
    }

    /**
     * A read lease for the sequencer of the epoch this member follows (docs/reads.md): granted, until {@code until}
     * on the read clock, only while it follows epoch {@code epochView} of {@code sequencer}; never by a member that
     * froze it. Its reports wait for the last lease it granted to expire ({@link #leaseGrantedUntil}).
     */
    synchronized boolean grantLease(long epochView, MemberId sequencer, long until) {
        EpochId e = epoch();
        if (e == null || e.view() != epochView || !e.sequencer().equals(sequencer)) {
            return false;
        }
        if (until - leaseGrantedUntil > 0) {
            leaseGrantedUntil = until;
        }
        return true;
    }

    /** Until when, on the read clock, a lease this member granted runs (at its start: a lease's length after it). */
    synchronized long leaseGrantedUntil() {
        return leaseGrantedUntil;
    }

    /** This incarnation starts at {@code now}: a predecessor's grants, unknown, may run for one lease more. */
    synchronized void leaseStart(long now, long leaseNanos) {
        leaseGrantedUntil = now + leaseNanos;
    }

    /** The application installed a state: this member holds the history again (unless a gap is queued). */
    synchronized void synced() {
        if (pump.noGapPending() && !fresh) {
            synced = true;
            offerCheckpoint();   // with a log not rooted: at once, so that a restart can rebuild the installed state
        }
    }

    /** The application fell behind (its pump shed broadcasts): it holds the history again only once synced. */
    synchronized void unsynced() {
        if (synced) {
            LOG.warn("{}: its application fell behind the group; it no longer counts as holding the group's state",
                    self);
        }
        synced = false;
    }

    synchronized Map<MemberId, Long> marks() {
        return new HashMap<>(marks);
    }

    /** Where the member's history stands, for its MBean. */
    record Counters(long held, long delivered, long committed) { }

    synchronized Counters counters() {
        return new Counters(history.held(), history.delivered(), history.commitKnown());
    }

    /** The last entry of the history this member holds contiguously. */
    synchronized long heldNow() {
        return history.held();
    }

    synchronized int logSize() {
        return log.size();
    }

    /** The payloads this member holds in memory, by position (diagnostics; the protocol simulator's accounting). */
    synchronized Map<Long, byte[]> heldPayloads() {
        Map<Long, byte[]> out = new TreeMap<>();
        log.forEach((p, e) -> out.put(p, e.payload()));
        return out;
    }

    /** One line for diagnostics: where this member stands. */
    synchronized String describe() {
        return "phase=" + phase + " " + history + " synced=" + synced + " early=" + early.size() + " ahead="
                + ahead.size();
    }

    synchronized Phase phase() {
        return phase;
    }

    /** The highest ballot this member promised. */
    synchronized long promised() {
        return promised;
    }

    /**
     * {@code barriers} are ready once this member delivered up to {@code position}, if before {@code deadline};
     * returns true if it has delivered that far already: the caller makes them ready, outside this monitor.
     */
    synchronized boolean readsAt(long position, List<org.fts.gc.ReadBarrier> barriers, long deadline) {
        return reads.addUnlessDelivered(position, history.delivered(), barriers, deadline);
    }

    /** The read barriers past their deadline (all of them with {@code Long.MAX_VALUE}): the caller refuses them. */
    synchronized List<org.fts.gc.ReadBarrier> expireReads(long now) {
        return reads.isEmpty() ? List.of() : reads.expire(now);
    }
}
