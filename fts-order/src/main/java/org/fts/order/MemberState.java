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
 * The state of a {@link Member} and its ordered-entries half: holding the entries of the epoch it follows,
 * delivering them once committed, acknowledging them. {@link Member} adds the recovery half (views, reports,
 * epochs, repairs). One object, one monitor: every method here and there is guarded by it.
 */
abstract class MemberState {
    static final Logger LOG = LoggerFactory.getLogger(Member.class);
    static final int ACK_EVERY = 512;

    final MemberId self;
    final GroupConfig config;
    final DeliveryPump pump;
    final Origin origin;
    final Member.Net net;
    /** This member's write-ahead log ({@code fts.durability=log}), or null. */
    final MemberLog disk;
    /** {@link Ordering#OFFLOAD}: entries arrive from their origins, so out of position order. */
    final boolean offload;
    /** The highest ballot this member promised a recovery (persisted with a log). */
    long promised;
    /**
     * The last epoch this member opened, as it reports it to a recovery and writes it in its log's meta (its id,
     * the ballot that established it, whether it founded the group, its members, its first position, and the older
     * epochs whose history it continued, nearest first); null before it opened any. While {@link Phase.Open}, the
     * phase's epoch.
     */
    Wire.Opened opened;
    /** With a log: the last entry handed to it (entries held while catching up go to it once the epoch opens). */
    long logged;

    View view;
    Phase phase = new Phase.Joining();
    boolean fresh = true;
    boolean synced;
    boolean shortcut;
    /**
     * With a log, where this member and its sequencer are a majority (3 replicas): what this member's disk holds of
     * what the sequencer's disk holds ({@code sequencerHolds}, told by its COMMITs) is committed, without waiting for
     * the sequencer to count a follower's ACK: the memory mode's shortcut, made durable (docs/durability.md).
     */
    boolean durablePair;
    long sequencerHolds;
    long held;
    long delivered;
    /**
     * The last position this member delivered itself (not skipped by a gap): under uniform delivery a delivered entry
     * was committed, so every later history holds it there.
     */
    long deliveredHere;
    long commitKnown;
    /** A durable member cut back for repairs from another epoch's history, not open yet: it reports no epoch. */
    boolean foreign;
    /** While {@code foreign}: how far its log is still its last epoch's history (it reports only that much). */
    long foreignUpTo;
    /** Whether its state holds a broadcast (delivered, or a gap's); not delivered > 0, which a refounding sets. */
    boolean applied;
    /** The last entry of the history the open epoch continues: delivered only once committed in this epoch. */
    long tailEnd;
    long lastAcked;
    /** The standing (held and commit point) this member last repeated its acknowledgement for ({@link #ackDue}). */
    long repeatedAt = -1;
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
    long earlyCommitted;
    /**
     * After a gap: this member's own broadcasts up to this oseq are in the history the epoch continues, up to
     * {@code gapTailEnd}. The origin is told so only once that tail is committed: until then a later recovery may
     * still drop it, and the origin must keep them to send again (-1: nothing pending).
     */
    long gapOwn = -1;
    long gapTailEnd;
    /** Per origin, the highest oseq in the history up to {@code held}. */
    final Map<MemberId, Long> marks = new HashMap<>();
    long stashedRequest = -1;
    long stashedBallot;
    MemberId stashedFrom;
    /** Counts freezes and openings, so that the origin applies them in order ({@link Origin#resume}). */
    long step;
    /** With a log: per origin, the highest oseq delivered up to {@code delivered} (a checkpoint's marks). */
    final Map<MemberId, Long> deliveredMarks = new HashMap<>();
    /** With a log: payload bytes delivered since the last checkpoint was offered. */
    long sinceCheckpoint;
    /** With a log: a checkpoint offered to the application, not saved or skipped yet. */
    boolean checkpointOut;
    /**
     * With a log: whether a restart can rebuild the application's state from the log (false after a gap, until the
     * application checkpoints the state it installed, at {@code rootFloor} or later).
     */
    boolean rooted = true;
    long rootFloor;
    /**
     * A restarted member's log end: its own log's entries up to here are replayed whatever the delivery backlog (they
     * are in memory already, and after a whole-group restart no other member may be able to provide a state).
     */
    long replayTo;
    /**
     * With a log: the positions its log holds but cannot verify (a damaged disk), with each one's identity when its
     * record still says it; repaired from other members' copies, or cut, before this member opens an epoch (the
     * recovery's mend step, docs/durability.md, "Storage faults").
     */
    final TreeMap<Long, MemberLog.Damaged> damaged = new TreeMap<>();
    /** With a log: the entries that verify after the first damaged one, held once the damage before them is gone. */
    final TreeMap<Long, Entry> beyond = new TreeMap<>();
    /** With a log: the last entry its log holds, damaged or not (it reports this much of a history as its). */
    long extent;
    /** With a log: the marks of the checkpoint its history goes on from (a cut recomputes its marks from them). */
    Map<MemberId, Long> rootMarks = Map.of();
    /** With a log: the last damaged entry at or behind that checkpoint: never given for a repair. */
    long damagedBase;
    /** Null (the default) outside the protocol simulator: one field test per delivery. */
    MemberTap tap;

    MemberState(MemberId self, GroupConfig config, DeliveryPump pump, Origin origin, Member.Net net,
                MemberLog disk, boolean offload) {
        this.offload = offload;
        this.self = self;
        this.config = config;
        this.pump = pump;
        this.origin = origin;
        this.net = net;
        this.disk = disk;
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

    /**
     * Offload: an entry multicast by its origin (or this member's own). Held in position order: one past a hole waits
     * in {@code ahead}, dropped if this member freezes first. Returns whether {@code held} advanced (an ACK is due).
     */
    synchronized boolean onData(Wire.Data d) {
        EpochId e = new EpochId(d.epochView(), d.sequencer());
        if (phase instanceof Phase.Open open && open.epoch().equals(e)) {
            long before = held;
            accept(d.e());
            deliverCommitted();
            return held > before;
        }
        if ((phase instanceof Phase.Catching c && c.epoch().equals(e)) || (phase instanceof Phase.Frozen f
                && f.view() == d.epochView() && d.sequencer().equals(f.coordinator()))) {
            early.put(d.e().gseq(), d.e());   // the epoch this member is about to open
            return false;
        }
        LOG.debug("{}: dropped DATA {} of epoch {} in phase {}", self, d.e().gseq(), e, phase);
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
    synchronized void commit(EpochId e, long upTo, long stable, long seqHolds) {
        if (phase instanceof Phase.Open open && open.epoch().equals(e)) {
            sequencerHolds = Math.max(sequencerHolds, seqHolds);
            if (upTo > commitKnown || durablePair) {
                commitKnown = Math.max(commitKnown, upTo);
                deliverCommitted();
            }
            trim(stable);
        } else if ((phase instanceof Phase.Catching c && c.epoch().equals(e)) || (phase instanceof Phase.Frozen f
                && f.view() == e.view() && e.sequencer().equals(f.coordinator()))) {
            earlyCommitted = Math.max(earlyCommitted, upTo);   // the epoch this member is about to open
        }
    }

    final void accept(Entry entry) {
        if (entry.gseq() <= held) {
            return;   // a duplicate
        }
        if (entry.gseq() != held + 1) {
            if (!offload) {   // cannot happen over FIFO channels from one sequencer; held back, not out of order
                LOG.error("{}: ORD {} after {}: FIFO from the sequencer was broken", self, entry.gseq(), held);
            }
            ahead.put(entry.gseq(), entry);
            return;
        }
        hold(entry);
        holdAhead();
    }

    final void holdAhead() {
        for (Entry next = ahead.remove(held + 1); next != null; next = ahead.remove(held + 1)) {
            hold(next);
        }
        ahead.headMap(held, true).clear();
    }

    final void hold(Entry e) {
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
    final void truncate(long t, Map<MemberId, Long> sourceMarks) {
        if (held > t || extent > t) {
            LOG.info("{}: cuts its history back from {} to {} (its commit point): the new epoch continues another "
                    + "epoch's history, which repairs it from there", self, Math.max(held, extent), t);
            log.tailMap(t, false).clear();
            held = Math.min(held, t);
            if (logged > t) {
                disk.truncateAfter(t);
                logged = t;
            }
        }
        beyond.tailMap(t, false).clear();   // with its damaged entries after the cut, if any
        damaged.tailMap(t, false).clear();
        Map.Entry<Long, MemberLog.Damaged> straddling = damaged.lastEntry();
        if (straddling != null && straddling.getValue().to() > t) {
            MemberLog.Damaged d = straddling.getValue();
            damaged.put(d.from(), new MemberLog.Damaged(d.from(), t, d.origin(), d.oseq()));
        }
        extent = Math.min(extent, t);
        if (delivered > held) {
            LOG.error("{}: delivered {} but its history is cut back to {}", self, delivered, held);
        }
        marks.clear();
        marks.putAll(sourceMarks);
        if (!foreign) {
            foreignUpTo = Math.min(t, held);
        }
        foreign = true;
    }

    /** What this member may acknowledge: what it holds, and with a log, what its disk holds of that. */
    final long ackable() {
        return disk == null ? held : Math.min(held, disk.durable());
    }

    final void deliverCommitted() {
        if (durablePair && phase instanceof Phase.Open) {
            commitKnown = Math.max(commitKnown, Math.min(ackable(), sequencerHolds));
        }
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
            deliveredHere = delivered;
            applied = true;
            if (e.origin().equals(self)) {
                origin.delivered(e.oseq());
            }
            if (tap != null) {
                tap.delivered(e.gseq(), e.origin(), e.payload());
            }
            if (e.gseq() <= replayTo) {
                pump.replay(e.origin(), e.payload().clone());
            } else {
                pump.broadcast(e.origin(), e.payload().clone());   // the log keeps the original for repairs
            }
            if (disk != null) {
                deliveredMarks.merge(e.origin(), e.oseq(), Math::max);
                sinceCheckpoint += e.payload().length;
            }
        }
        if (!reads.isEmpty()) {
            reads.release(delivered, pump);
        }
        if (gapOwn >= 0 && phase instanceof Phase.Open && commitKnown >= gapTailEnd) {
            origin.delivered(gapOwn);   // its broadcasts the skipped, now committed, history holds
            gapOwn = -1;
        }
        offerCheckpoint();
    }

    /**
     * With a log: offers the application a checkpoint at {@code delivered} (queued after the broadcasts delivered so
     * far) once the log grew by {@code fts.durability.checkpoint} bytes, or at once while the log cannot rebuild
     * the state; one at a time.
     */
    final void offerCheckpoint() {
        if (disk == null || checkpointOut || !synced || (rooted && sinceCheckpoint < disk.checkpointEvery())) {
            return;
        }
        checkpointOut = true;
        sinceCheckpoint = 0;
        pump.checkpoint(new Due(delivered, new HashMap<>(deliveredMarks)));
    }

    /** A checkpoint offered to the application; its state goes to the log's checkpoints. */
    private final class Due implements org.fts.gc.Checkpoint {
        private final long position;
        private final Map<MemberId, Long> at;
        private final java.util.concurrent.atomic.AtomicBoolean answered = new java.util.concurrent.atomic.AtomicBoolean();

        Due(long position, Map<MemberId, Long> at) {
            this.position = position;
            this.at = at;
        }

        @Override
        public long position() {
            return position;
        }

        @Override
        public void save(byte[] state) {
            if (!answered.compareAndSet(false, true)) {
                throw new IllegalStateException("checkpoint at " + position + " already saved or skipped");
            }
            disk.checkpoint(position, at, state, ok -> checkpointed(position, ok));
        }

        @Override
        public void skip(String why) {
            if (answered.compareAndSet(false, true)) {
                LOG.debug("{}: checkpoint at {} skipped: {}", self, position, why);
                checkpointed(position, false);
            }
        }
    }

    private synchronized void checkpointed(long position, boolean written) {
        checkpointOut = false;
        if (written && !rooted && position >= rootFloor) {
            rooted = true;
            LOG.info("{}: its log rebuilds its state again, from the checkpoint at {}", self, position);
        } else if (written && !rooted) {
            offerCheckpoint();   // one from before its gap
        }
    }

    final void trim(long stable) {
        long upTo = Math.min(stable, delivered);
        if (upTo > 0 && !log.isEmpty() && log.firstKey() <= upTo) {
            log.headMap(upTo, true).clear();
        }
    }

    /** An acknowledgement due: this member holds up to {@code held} of the epoch of view {@code view}. */
    record AckDue(long view, long held) {
    }

    /**
     * The ACK this member owes its sequencer, or null: every batch under uniform delivery, else every 512. With
     * {@code always} (the timer) also a repeat while it holds entries it does not know committed: an acknowledgement
     * can be lost (one sent before the sequencer opened the epoch, or dropped with a connection), and with no further
     * traffic the commit point would never move past it. Once per standing (what it holds, and what it knows
     * committed), so that a commit stuck for another reason costs one message, not one per tick.
     */
    synchronized AckDue ackDue(boolean always) {
        long ackable = ackable();
        if (!(phase instanceof Phase.Open)) {
            return null;
        }
        if (ackable <= lastAcked) {
            if (!always || !config.uniform() || commitKnown >= ackable || repeatedAt == ackable + commitKnown * 31) {
                return null;
            }
            repeatedAt = ackable + commitKnown * 31;   // once per standing: a repeat that is lost too waits for traffic
            return new AckDue(opened.id().view(), ackable);
        }
        if (!(always || config.uniform() || ackable - lastAcked >= ACK_EVERY)) {
            return null;
        }
        lastAcked = ackable;
        return new AckDue(opened.id().view(), ackable);
    }

    /** What this member acknowledged or may acknowledge at once (the sequencer's own count at an opening). */
    synchronized long acknowledgeable() {
        return ackable();
    }

    /** Whether this member's state holds a broadcast (it is not the initial state). */
    synchronized boolean holdsBroadcasts() {
        return applied;
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

    /** For the protocol simulator only: observe this member ({@link MemberTap}). */
    synchronized void tap(MemberTap t) {
        tap = t;
    }

    synchronized Map<MemberId, Long> marks() {
        return new HashMap<>(marks);
    }

    /** Where the member's history stands, for its MBean. */
    record Counters(long held, long delivered, long committed) { }

    synchronized Counters counters() {
        return new Counters(held, delivered, commitKnown);
    }

    /** The last entry of the history this member holds contiguously. */
    synchronized long heldNow() {
        return held;
    }

    synchronized int logSize() {
        return log.size();
    }

    /** The payloads this member holds in memory, by position (diagnostics; the protocol simulator's accounting). */
    synchronized Map<Long, byte[]> heldPayloads() {
        Map<Long, byte[]> out = new java.util.TreeMap<>();
        log.forEach((p, e) -> out.put(p, e.payload()));
        return out;
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
