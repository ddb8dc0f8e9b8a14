package org.fts.order;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.fts.gc.GroupConfig;
import org.fts.gc.MemberId;
import org.fts.gc.View;
import org.fts.gc.internal.EpochId;
import org.fts.gc.internal.EpochPlan;
import org.fts.order.Wire.Entry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sequencer role of {@link TotalOrder}, active on the view's coordinator: has the recovery of every view run
 * ({@link RecoveryCoordinator}: the members' reports, the decision, the repairs and the epoch), then orders
 * forwards (FWD) into ORD multicasts, and tracks acknowledgements for the commit point (held by a
 * majority) and the stability point (held by all). Guarded by its own monitor, taken after the origin lock
 * and before the member's monitor; acknowledgements have their own lock (see {@link Acks}).
 */
final class Sequencer {
    /** What the sequencer sends. */
    interface Net {
        void toMember(MemberId to, Wire.Msg m);

        void ordToOthers(Wire.Ord o);

        void commitToOthers(Wire.Commit c);

        /** Offload: grants positions to {@code origin} (possibly this member). Never blocks: not flow-controlled. */
        void grant(MemberId origin, Wire.Grant g);

        /** Asks {@code source} (possibly this member) to send {@code target} its entries in (from, upTo]. */
        void repair(MemberId source, long view, MemberId target, long from, long upTo);
    }

    private static final Logger LOG = LoggerFactory.getLogger(Sequencer.class);

    private final MemberId self;
    private final Net net;
    private final Member member;
    private final Acks acks;
    /** Members log what they hold ({@code fts.durability=log}): see {@link EpochPlan#decide}. */
    private final boolean durable;

    /**
     * Where this member stands as a sequencer. Volatile: the failure-detection timer reads it without the monitor,
     * which a blocked multicast may hold.
     */
    private volatile SequencerState state = new SequencerState.Idle();
    private long nextGseq;
    private final Map<MemberId, Long> sequencedOseq = new HashMap<>();
    private final Map<MemberId, TreeMap<Long, Wire.Fwd>> parked = new HashMap<>();
    /** Forwards or requests from members of the epoch this member is establishing, ordered once it opens. */
    private final List<Queued> queued = new ArrayList<>();
    private final boolean offload;
    private final HoleWatch holes = new HoleWatch();
    /** The recovery of the views this member coordinates; guarded by this monitor. */
    private final RecoveryCoordinator recovery;
    private final java.util.Set<MemberId> mismatched = new java.util.HashSet<>();

    private record Queued(MemberId origin, Wire.Msg msg) {
    }

    Sequencer(MemberId self, GroupConfig config, Net net, Member member, boolean durable, Ordering ordering) {
        this.self = self;
        this.net = net;
        this.member = member;
        this.durable = durable;
        this.offload = ordering == Ordering.OFFLOAD;
        this.acks = new Acks(self, config, net, member, durable, offload);
        this.recovery = new RecoveryCoordinator(self, config, net, member, durable);
    }

    /** Offload: the ledger of positions granted in the epoch this member sequences. */
    HoleWatch holes() {
        return holes;
    }

    /** Recoveries this member coordinated. */
    long recoveries() {
        return recovery.recoveries();
    }

    /** Whether this member sequences an open epoch (read without the monitor). */
    boolean sequencing() {
        return state instanceof SequencerState.Sequencing;
    }

    Acks acks() {
        return acks;
    }

    /**
     * The epoch this member sequences, if its own member has opened it too, and the last position ordered in it:
     * a read index (docs/reads.md). Null otherwise.
     */
    synchronized ReadConfirmer.Point readPoint() {
        if (state instanceof SequencerState.Sequencing s && s.epoch().equals(member.epoch())) {
            return new ReadConfirmer.Point(s.epoch(), s.members(), nextGseq - 1);
        }
        return null;
    }

    /**
     * Members of the epoch this member sequences that hold less than the commit point and acknowledged nothing
     * new for {@code patienceNanos} (none when it sequences nothing). Never takes this monitor.
     */
    List<MemberId> stalled(long now, long patienceNanos) {
        return sequencing() ? acks.stalled(now, patienceNanos) : List.of();
    }

    /**
     * Follows a view change: every view opens a recovery, run by its coordinator. Returns whether this
     * member runs it (the caller then asks every member for its state).
     */
    synchronized boolean viewChanged(View v) {
        assert !Thread.holdsLock(member) : "lock order: sequencer after member";
        queued.clear();
        parked.clear();
        holes.reset();
        if (!self.equals(v.coordinator())) {
            state = new SequencerState.Idle();
            recovery.reset(state);
            return false;
        }
        state = new SequencerState.Recovering(v.id(), v.members());
        recovery.start(v, state);
        return true;
    }

    /** The ballot of the recovery this member runs (after {@link #viewChanged} returned true). */
    synchronized long ballot() {
        return recovery.ballot();
    }

    /**
     * A member promised a higher ballot than the recovery's: asks every member again with a higher one. Members that
     * reported already report again under it. Returns the requests to send.
     */
    synchronized List<Runnable> onRefused(MemberId src, Wire.Refused r) {
        if (!(state instanceof SequencerState.Recovering rec)) {
            return List.of();
        }
        return recovery.onRefused(rec, src, r);
    }

    /** The recovery's wait ({@link RecoveryCoordinator#unreported}); never takes this monitor. */
    RecoveryCoordinator.Waiting unreported() {
        return recovery.unreported();
    }

    /**
     * A member's report to the recovery this member runs. Once every member reported, decides and sends the
     * outcome; the sends run after this monitor is released (one of them may open this member's own epoch,
     * which takes the origin's lock, first in the lock order).
     */
    void onState(MemberId src, Wire.State s) {
        assert !Thread.holdsLock(member) : "lock order: sequencer after member";
        List<Runnable> out = new ArrayList<>();
        synchronized (this) {
            if (state instanceof SequencerState.Recovering rec) {
                SequencerState next = recovery.onState(rec, src, s, out);
                if (next != rec) {
                    state = next;
                    recovery.published(state);
                }
            }
        }
        Steps.runAll(out);
    }

    /**
     * This member opened the epoch it established: ordering starts at {@code start}. Returns the grants of the
     * requests queued meanwhile (offload), to send after this monitor is released.
     */
    synchronized List<Runnable> open(EpochId e, long start) {
        assert !Thread.holdsLock(member) : "lock order: sequencer after member";
        if (!(state instanceof SequencerState.Pending p) || !e.equals(p.epoch())) {
            return List.of();   // superseded by a newer view
        }
        nextGseq = start;
        sequencedOseq.clear();
        sequencedOseq.putAll(member.marks());   // what the history already holds, per origin
        acks.open(e, p.members(), start - 1, member.commitKnown(), member.acknowledgeable());
        holes.open(start);
        state = new SequencerState.Sequencing(e, p.members());
        LOG.debug("{}: sequencing epoch {} from {}; {} forwards queued", self, e, start, queued.size());
        List<Queued> waiting = new ArrayList<>(queued);
        queued.clear();
        List<Runnable> out = new ArrayList<>();
        for (Queued q : waiting) {
            if (q.msg() instanceof Wire.Fwd f) {
                onFwd(q.origin(), f);
            } else {
                out.addAll(onReq(q.origin(), (Wire.Req) q.msg()));
            }
        }
        return out;
    }

    synchronized void onFwd(MemberId origin, Wire.Fwd f) {
        assert !Thread.holdsLock(member) : "lock order: sequencer after member";
        if (offload) {
            mismatch(origin, "sequencer");
        } else if (state instanceof SequencerState.Sequencing s && s.members().contains(origin)) {
            sequence(s.epoch(), origin, f);
        } else if (establishing(origin, -1)) {
            queued.add(new Queued(origin, f));   // ordered once this member's epoch opens
        } else {
            // Stale (no longer the sequencer) or early (a view this member has not installed): the origin
            // resends when it opens its next epoch.
            LOG.debug("{}: FWD {} of {} dropped: not sequencing an epoch with it", self, f.oseq(), origin);
        }
    }

    /** A member orders by the other scheme: its broadcasts are dropped; said once per member (not per message). */
    private void mismatch(MemberId origin, String theirs) {
        if (mismatched.add(origin)) {
            LOG.error("{}: {} orders by {} but this member by {}: its broadcasts are not ordered until "
                    + "fts.gc.jgroups.ordering is the same at every member", self, origin, theirs,
                    offload ? "offload" : "sequencer");
        }
    }

    /** Whether this member establishes an epoch (of view {@code view}, or any if -1) that {@code origin} is in. */
    private boolean establishing(MemberId origin, long view) {
        if (state instanceof SequencerState.Recovering r) {
            return r.members().contains(origin) && (view < 0 || view == r.view());
        }
        return state instanceof SequencerState.Pending p && p.members().contains(origin)
                && (view < 0 || view == p.epoch().view());
    }

    /**
     * Offload: grants the next positions to the origin's broadcasts {@code r.from()}..{@code r.to()} not in the history
     * or granted yet (per-origin marks); an empty grant if none, so the origin's request always ends. A request of
     * another epoch is dropped (the origin asks again in this one). Returns the send, for after this monitor.
     */
    synchronized List<Runnable> onReq(MemberId origin, Wire.Req r) {
        assert !Thread.holdsLock(member) : "lock order: sequencer after member";
        if (!offload) {
            mismatch(origin, "offload");
            return List.of();
        }
        if (state instanceof SequencerState.Sequencing s && s.members().contains(origin)
                && s.epoch().view() == r.epochView()) {
            long base = Math.max(sequencedOseq.getOrDefault(origin, 0L), r.firstUnacked() - 1);
            long from = Math.max(r.from(), base + 1);
            long to = r.to();
            Wire.Grant g = new Wire.Grant(r.epochView(), from, to, nextGseq);
            if (from <= to) {
                holes.granted(nextGseq, to - from + 1, origin);
                nextGseq += to - from + 1;
                sequencedOseq.put(origin, to);
            }
            return List.of(() -> net.grant(origin, g));
        }
        if (establishing(origin, r.epochView())) {
            queued.add(new Queued(origin, r));
        } else {
            LOG.debug("{}: REQ {}..{} of {} for view {} dropped: not sequencing that epoch", self, r.from(), r.to(),
                    origin, r.epochView());
        }
        return List.of();
    }

    /**
     * Orders an origin's broadcasts strictly in its oseq order, each once. Below the origin's lowest unacked
     * oseq everything is ordered already (the origin delivered it); a forward that skips ahead (an older one
     * was lost with a dead sequencer, or dropped before this member knew its role) is parked until the
     * origin's resend fills the gap, rather than ordered first and the older ones then dropped as old.
     */
    private void sequence(EpochId epoch, MemberId o, Wire.Fwd f) {
        long base = Math.max(sequencedOseq.getOrDefault(o, 0L), f.firstUnacked() - 1);
        TreeMap<Long, Wire.Fwd> waiting = parked.get(o);
        if (f.oseq() > base + 1) {
            parked.computeIfAbsent(o, k -> new TreeMap<>()).put(f.oseq(), f);
            return;
        }
        if (f.oseq() > base) {
            if (!emit(epoch, o, f)) {
                return;
            }
            base = f.oseq();
        }
        if (waiting != null) {
            waiting.headMap(base, true).clear();
            for (Wire.Fwd next = waiting.remove(base + 1); next != null; next = waiting.remove(base + 1)) {
                if (!emit(epoch, o, next)) {
                    return;
                }
                base = next.oseq();
            }
            if (waiting.isEmpty()) {
                parked.remove(o);
            }
        }
        sequencedOseq.put(o, base);
    }

    /** Holds the entry here first (so the sequencer always holds what it ordered), then multicasts it. */
    private boolean emit(EpochId epoch, MemberId o, Wire.Fwd f) {
        Entry e = new Entry(nextGseq, o, f.oseq(), f.payload());
        if (!member.holdLocal(epoch, e)) {
            LOG.debug("{}: stops sequencing {}: its member left that epoch", self, epoch);
            state = new SequencerState.Idle();
            return false;
        }
        nextGseq++;
        net.ordToOthers(new Wire.Ord(epoch.view(), acks.stable(), acks.committed(), e));
        if (!durable) {
            acks.emitted(epoch, e.gseq());   // with a log, its member acknowledges once its disk holds it
        }
        return true;
    }
}
