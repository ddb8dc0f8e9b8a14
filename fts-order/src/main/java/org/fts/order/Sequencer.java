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
 * The sequencer role of {@link TotalOrder}, active on the view's coordinator: runs the recovery of every
 * view (collects the members' reports, decides with {@link EpochPlan}, sends repairs and the epoch), then
 * orders forwards (FWD) into ORD multicasts, and tracks acknowledgements for the commit point (held by a
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
    private final GroupConfig config;
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
    /** The ballot of the recovery this member runs; above every ballot it knows of. */
    private long ballot;
    private long knownBallot;
    private volatile Waiting waiting = new Waiting(-1, 0, List.of(), false);
    private final Map<MemberId, EpochPlan.Report> reports = new HashMap<>();
    private final Map<MemberId, Map<MemberId, Long>> reportedMarks = new HashMap<>();
    private long nextGseq;
    private final Map<MemberId, Long> sequencedOseq = new HashMap<>();
    private final Map<MemberId, TreeMap<Long, Wire.Fwd>> parked = new HashMap<>();
    /** Forwards or requests from members of the epoch this member is establishing, ordered once it opens. */
    private final List<Queued> queued = new ArrayList<>();
    private final boolean offload;
    private final HoleWatch holes = new HoleWatch();
    private final java.util.Set<MemberId> mismatched = new java.util.HashSet<>();
    private volatile long recoveries;

    private record Queued(MemberId origin, Wire.Msg msg) {
    }

    Sequencer(MemberId self, GroupConfig config, Net net, Member member, boolean durable, Ordering ordering) {
        this.self = self;
        this.config = config;
        this.net = net;
        this.member = member;
        this.durable = durable;
        this.offload = ordering == Ordering.OFFLOAD;
        this.acks = new Acks(self, config, net, member, durable, offload);
    }

    /** Offload: the ledger of positions granted in the epoch this member sequences. */
    HoleWatch holes() {
        return holes;
    }

    /** Recoveries this member coordinated. */
    long recoveries() {
        return recoveries;
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
        reports.clear();
        reportedMarks.clear();
        holes.reset();
        if (!self.equals(v.coordinator())) {
            state = new SequencerState.Idle();
            publishWaiting();
            return false;
        }
        state = new SequencerState.Recovering(v.id(), v.members());
        recoveries++;
        // Without a log, the view id. With one, above whatever this member promised or heard of, and the view id
        // while no member restarted from a log (JGroups numbers the views of a group formed again from 1).
        if (durable) {
            knownBallot = Math.max(knownBallot, member.promised());
            ballot = Math.max(v.id(), knownBallot + 1);
            knownBallot = ballot;
        } else {
            ballot = v.id();
        }
        publishWaiting();
        return true;
    }

    /** The ballot of the recovery this member runs (after {@link #viewChanged} returned true). */
    synchronized long ballot() {
        return ballot;
    }

    /**
     * A member promised a higher ballot than the recovery's: asks every member again with a higher one. Members that
     * reported already report again under it. Returns the requests to send.
     */
    synchronized List<Runnable> onRefused(MemberId src, Wire.Refused r) {
        if (!(state instanceof SequencerState.Recovering rec) || r.view() != rec.view() || r.ballot() != ballot
                || !rec.members().contains(src)) {
            return List.of();
        }
        knownBallot = Math.max(knownBallot, r.promised());
        ballot = knownBallot + 1;
        knownBallot = ballot;
        reports.clear();
        reportedMarks.clear();
        publishWaiting();
        LOG.info("{}: recovery of view {}: {} promised ballot {}; asking again with {}", self, rec.view(), src,
                r.promised(), ballot);
        List<Runnable> out = new ArrayList<>();
        Wire.StateReq again = new Wire.StateReq(rec.view(), ballot);
        for (MemberId m : rec.members()) {
            out.add(() -> net.toMember(m, again));
        }
        return out;
    }

    /**
     * The recovery this member runs ({@code view} -1: none), the members that have not reported to it yet, and
     * whether the members that did would establish an epoch without them (so that excluding them lets the group
     * go on; otherwise one of them holds what the others need, and the recovery must wait for it).
     */
    record Waiting(long view, long ballot, List<MemberId> missing, boolean decidableWithout) {
    }

    /** Never takes this monitor (a timer asks, and the monitor's holder may wait for flow-control credits). */
    Waiting unreported() {
        return waiting;
    }

    /** Under this monitor, after each change of the recovery or its reports. */
    private void publishWaiting() {
        if (!(state instanceof SequencerState.Recovering rec)) {
            waiting = new Waiting(-1, 0, List.of(), false);
            return;
        }
        List<MemberId> missing = new ArrayList<>(rec.members());
        missing.removeAll(reports.keySet());
        List<MemberId> reported = new ArrayList<>(rec.members());
        reported.retainAll(reports.keySet());
        boolean decidable = !missing.isEmpty() && !reported.isEmpty()
                && EpochPlan.decide(config, durable, reported, reports, self).established();
        waiting = new Waiting(rec.view(), ballot, List.copyOf(missing), decidable);
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
            decideIfComplete(src, s, out);
        }
        Steps.runAll(out);
    }

    private void decideIfComplete(MemberId src, Wire.State s, List<Runnable> out) {
        if (!(state instanceof SequencerState.Recovering rec) || s.view() != rec.view() || s.ballot() != ballot
                || !rec.members().contains(src)) {
            return;
        }
        List<MemberId> recoveryMembers = rec.members();
        knownBallot = Math.max(knownBallot, s.epoch() == null ? 0 : s.epoch().ballot());
        reports.put(src, report(s));
        reportedMarks.put(src, s.marks());
        publishWaiting();
        if (reports.size() < recoveryMembers.size()) {
            return;
        }
        long view = rec.view();
        EpochPlan.Decision d = EpochPlan.decide(config, durable, recoveryMembers, reports, self);
        org.fts.gc.internal.Mend.Plan mend = org.fts.gc.internal.Mend.plan(config, recoveryMembers, reports, d);
        if (mend != null && (!mend.repairs().isEmpty() || !mend.cuts().isEmpty())) {
            mend(view, mend, out);   // decided once the damaged members report again, mended
            return;
        }
        state = new SequencerState.Idle();
        publishWaiting();
        if (mend != null) {
            d = EpochPlan.Decision.notPrimary(mend.waiting());
        }
        LOG.debug("{}: recovery of view {}: {} from reports {}", self, view, d, reports);
        if (!d.established()) {
            LOG.info("{}: view {} is not primary: {}", self, view, d.reason());
            for (MemberId m : recoveryMembers) {
                Wire.NotPrimary np = new Wire.NotPrimary(view, d.reason());
                out.add(() -> net.toMember(m, np));
            }
            return;
        }
        Map<MemberId, Long> marks = d.founding() ? Map.of() : reportedMarks.get(d.source());
        List<EpochPlan.Link> lineage = EpochPlan.Link.of(d.start(), d.founding() ? null : reports.get(d.source()));
        for (EpochPlan.Repair r : d.repairs()) {
            out.add(() -> net.repair(r.source(), view, r.target(), r.from(), r.upTo()));
        }
        EpochId pending = new EpochId(view, self);
        state = new SequencerState.Pending(pending, recoveryMembers);
        LOG.info("{}: view {} establishes epoch {} at {} ({})", self, view, pending, d.start(), d.refounding()
                ? "founding the group again: its interrupted founding committed nothing"
                : d.founding() ? "founding the group" : "continuing the history of " + d.source());
        // Founding again, a member whose state holds a broadcast turns its opening into a gap: a member whose state is
        // the initial one (this one if it is, else one that reports it never applied an entry) provides it.
        MemberId initial = null;
        if (d.refounding()) {
            initial = !member.holdsBroadcasts() ? self : recoveryMembers.stream()
                    .filter(m -> reports.get(m).fresh() || reports.get(m).delivered() == 0).findFirst().orElse(null);
        }
        for (Map.Entry<MemberId, EpochPlan.Assignment> a : d.assignments().entrySet()) {
            EpochPlan.Assignment as = a.getValue();
            Wire.EpochMsg e = new Wire.EpochMsg(view, ballot, d.start(), as.gap(), d.refounding(), as.truncate(),
                    d.refounding() ? initial : as.provider(), as.gap() || as.truncate() >= 0 ? marks : Map.of(),
                    lineage, as.witness());
            out.add(() -> net.toMember(a.getKey(), e));
        }
    }

    /**
     * The mend step (docs/durability.md, "Storage faults"): suppliers send damaged members copies that verify, and
     * members whose damaged entries nobody has and that cannot have been committed cut their logs; the recovery waits
     * for the report each of them sends once mended (asked again every second, like any missing report).
     */
    private void mend(long view, org.fts.gc.internal.Mend.Plan plan, List<Runnable> out) {
        LOG.info("{}: recovery of view {} mends damaged logs first: repairs {}, cuts {}{}", self, view, plan.repairs(),
                plan.cuts(), plan.waiting() == null ? "" : "; then " + plan.waiting());
        for (EpochPlan.Repair r : plan.repairs()) {
            reports.remove(r.target());
            out.add(() -> net.repair(r.source(), view, r.target(), r.from(), r.upTo()));
        }
        for (Map.Entry<MemberId, Long> c : plan.cuts().entrySet()) {
            reports.remove(c.getKey());
            Wire.MendCut cut = new Wire.MendCut(view, c.getValue());
            out.add(() -> net.toMember(c.getKey(), cut));
        }
        publishWaiting();
    }

    /** A member's report as the recovery's rules read it. */
    private static EpochPlan.Report report(Wire.State s) {
        Wire.Opened e = s.epoch();
        EpochPlan.Report r = new EpochPlan.Report(s.fresh(), s.synced(), e == null ? 0 : e.ballot(),
                e == null ? null : e.id(), e != null && e.founding(), e == null ? List.of() : e.members(), s.last(),
                s.commit(), s.base());
        return (e == null ? r : r.lineage(e.start(), e.lineage())).applied(s.delivered()).damaged(s.damaged())
                .shortOf(s.shortLog());
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
