package org.fts.order;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.fts.gc.GroupConfig;
import org.fts.gc.MemberId;
import org.fts.gc.View;
import org.fts.gc.internal.EpochId;
import org.fts.gc.internal.EpochPlan;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The recovery of a view, run by its coordinator (docs/group-communication.md, "Epochs"): the ballot, the members'
 * reports, the mend step, the decision ({@link EpochPlan#decide}) and the messages that carry it out (repairs, the
 * epoch, or "not primary"). The {@link Sequencer} owns it and calls it only under its own monitor, which guards it;
 * the sequencer's state says whether a recovery runs ({@link SequencerState.Recovering}), and a decided recovery
 * moves it on ({@link #onState}).
 */
final class RecoveryCoordinator {
    private static final Logger LOG = LoggerFactory.getLogger(RecoveryCoordinator.class);

    /**
     * The recovery this member runs ({@code view} -1: none), the members that have not reported to it yet, and
     * whether the members that did would establish an epoch without them (so that excluding them lets the group
     * go on; otherwise one of them holds what the others need, and the recovery must wait for it).
     */
    record Waiting(long view, long ballot, List<MemberId> missing, boolean decidableWithout) {
    }

    private final MemberId self;
    private final GroupConfig config;
    private final Sequencer.Net net;
    private final Member member;
    /** Members log what they hold ({@code fts.durability=log}): see {@link EpochPlan#decide}. */
    private final boolean durable;
    /** The ballot of the recovery this member runs; above every ballot it knows of. */
    private long ballot;
    private long knownBallot;
    private volatile Waiting waiting = new Waiting(-1, 0, List.of(), false);
    private final Map<MemberId, EpochPlan.Report> reports = new HashMap<>();
    private final Map<MemberId, Map<MemberId, Long>> reportedMarks = new HashMap<>();
    private volatile long recoveries;

    RecoveryCoordinator(MemberId self, GroupConfig config, Sequencer.Net net, Member member, boolean durable) {
        this.self = self;
        this.config = config;
        this.net = net;
        this.member = member;
        this.durable = durable;
    }

    /** A view this member does not coordinate: no recovery runs here ({@code state} is the sequencer's, idle). */
    void reset(SequencerState state) {
        reports.clear();
        reportedMarks.clear();
        published(state);
    }

    /** The recovery of {@code v}, which this member coordinates ({@code state}: recovering it), starts. */
    void start(View v, SequencerState state) {
        reports.clear();
        reportedMarks.clear();
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
        published(state);
    }

    /** The ballot of the recovery this member runs (after {@link #start}). */
    long ballot() {
        return ballot;
    }

    /** Recoveries this member coordinated (read without the monitor). */
    long recoveries() {
        return recoveries;
    }

    /**
     * A member promised a higher ballot than the recovery's: asks every member again with a higher one. Members that
     * reported already report again under it. Returns the requests to send.
     */
    List<Runnable> onRefused(SequencerState.Recovering rec, MemberId src, Wire.Refused r) {
        if (r.view() != rec.view() || r.ballot() != ballot || !rec.members().contains(src)) {
            return List.of();
        }
        knownBallot = Math.max(knownBallot, r.promised());
        ballot = knownBallot + 1;
        knownBallot = ballot;
        reports.clear();
        reportedMarks.clear();
        published(rec);
        LOG.info("{}: recovery of view {}: {} promised ballot {}; asking again with {}", self, rec.view(), src,
                r.promised(), ballot);
        List<Runnable> out = new ArrayList<>();
        Wire.StateReq again = new Wire.StateReq(rec.view(), ballot);
        for (MemberId m : rec.members()) {
            out.add(() -> net.toMember(m, again));
        }
        return out;
    }

    /** Never takes the sequencer's monitor (a timer asks, and the monitor's holder may wait for flow-control credits). */
    Waiting unreported() {
        return waiting;
    }

    /** Under the sequencer's monitor, after each change of its state, of the recovery or of its reports. */
    void published(SequencerState state) {
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
     * A member's report to the recovery {@code rec}. Once every member reported, decides, and adds the messages
     * that carry the decision out to {@code out}. Returns the sequencer's next state: {@code rec} while the recovery
     * waits (for reports, or for damaged members to be mended), {@link SequencerState.Idle} when it ended without an
     * epoch, {@link SequencerState.Pending} when it established one.
     */
    SequencerState onState(SequencerState.Recovering rec, MemberId src, Wire.State s, List<Runnable> out) {
        if (s.view() != rec.view() || s.ballot() != ballot || !rec.members().contains(src)) {
            return rec;
        }
        List<MemberId> recoveryMembers = rec.members();
        knownBallot = Math.max(knownBallot, s.epoch() == null ? 0 : s.epoch().ballot());
        reports.put(src, report(s));
        reportedMarks.put(src, s.marks());
        published(rec);
        if (reports.size() < recoveryMembers.size()) {
            return rec;
        }
        long view = rec.view();
        EpochPlan.Decision d = EpochPlan.decide(config, durable, recoveryMembers, reports, self);
        org.fts.gc.internal.Mend.Plan mend = org.fts.gc.internal.Mend.plan(config, recoveryMembers, reports, d);
        if (mend != null && (!mend.repairs().isEmpty() || !mend.cuts().isEmpty())) {
            mend(rec, mend, out);   // decided once the damaged members report again, mended
            return rec;
        }
        if (mend != null) {
            LOG.debug("{}: recovery of view {} waits for a damaged entry; the decision it holds back: {}", self,
                    rec.view(), d);
            d = EpochPlan.Decision.notPrimary(mend.waiting());
        }
        LOG.debug("{}: recovery of view {}: {} from reports {}", self, view, d, reports);
        if (!d.established()) {
            LOG.info("{}: view {} is not primary: {}", self, view, d.reason());
            for (MemberId m : recoveryMembers) {
                Wire.NotPrimary np = new Wire.NotPrimary(view, d.reason());
                out.add(() -> net.toMember(m, np));
            }
            return new SequencerState.Idle();
        }
        Map<MemberId, Long> marks = d.founding() ? Map.of() : reportedMarks.get(d.source());
        List<EpochPlan.Link> lineage = EpochPlan.Link.of(d.start(), d.founding() ? null : reports.get(d.source()));
        for (EpochPlan.Repair r : d.repairs()) {
            out.add(() -> net.repair(r.source(), view, r.target(), r.from(), r.upTo()));
        }
        EpochId pending = new EpochId(view, self);
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
        return new SequencerState.Pending(pending, recoveryMembers);
    }

    /**
     * The mend step (docs/durability.md, "Storage faults"): suppliers send damaged members copies that verify, and
     * members whose damaged entries nobody has and that cannot have been committed cut their logs; the recovery waits
     * for the report each of them sends once mended (asked again every second, like any missing report).
     */
    private void mend(SequencerState.Recovering rec, org.fts.gc.internal.Mend.Plan plan, List<Runnable> out) {
        long view = rec.view();
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
        published(rec);
    }

    /** A member's report as the recovery's rules read it. */
    private static EpochPlan.Report report(Wire.State s) {
        Wire.Opened e = s.epoch();
        EpochPlan.Report r = new EpochPlan.Report(s.fresh(), s.synced(), e == null ? 0 : e.ballot(),
                e == null ? null : e.id(), e != null && e.founding(), e == null ? List.of() : e.members(), s.last(),
                s.commit(), s.base());
        return (e == null ? r : r.lineage(e.start(), e.lineage())).applied(s.delivered()).damaged(s.damaged())
                .shortOf(s.shortLog()).uncertainFrom(s.mayHoldFrom()).cutBack(s.cutBack());
    }
}
