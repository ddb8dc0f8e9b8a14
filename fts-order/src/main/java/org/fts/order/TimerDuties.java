package org.fts.order;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;

import org.fts.gc.MemberId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link TotalOrder}'s duties on the timer thread: the stall watch over members and recovery reports, the hole
 * watch (offload), the sequencer watch, and the retries of recovery requests and grant requests. Its bookkeeping
 * is touched by the timer thread only.
 */
final class TimerDuties {
    private static final Logger LOG = LoggerFactory.getLogger(TimerDuties.class);

    private final MemberId self;
    private final TotalOrder.Transport net;
    private final Origin origin;
    private final Member member;
    private final Sequencer sequencer;
    private final StallWatch stalls;
    /** Offload: the watch over origins holding a hole, on its own, shorter clock. */
    private final StallWatch holeStalls = new StallWatch();
    private final SequencerWatch seqWatch;
    private final SequencerWatch.Out watchOut;
    private final BiConsumer<MemberId, Wire.Msg> toMember;
    /** {@link #retryRecovery}'s bookkeeping. */
    private long retryView = -1;
    private long retryAt;
    private long recoverySince;

    TimerDuties(MemberId self, TotalOrder.Transport net, Origin origin, Member member, Sequencer sequencer,
                StallWatch stalls, SequencerWatch seqWatch, SequencerWatch.Out watchOut,
                BiConsumer<MemberId, Wire.Msg> toMember) {
        this.self = self;
        this.net = net;
        this.origin = origin;
        this.member = member;
        this.sequencer = sequencer;
        this.stalls = stalls;
        this.seqWatch = seqWatch;
        this.watchOut = watchOut;
        this.toMember = toMember;
    }

    /**
     * One tick of the {@link StallWatch}: as the sequencer, members a majority moved on without for
     * {@code patienceNanos}; as the coordinator of a recovery running that long, members that have not reported.
     * Each is probed, and those that leave probes unanswered as long are excluded. After {@link #retryRecovery}
     * in the same tick.
     */
    void watchStalls(long now, long patienceNanos) {
        List<MemberId> watched = new ArrayList<>(sequencer.stalled(now, patienceNanos));
        watchHoles(now, patienceNanos);
        RecoveryCoordinator.Waiting r = sequencer.unreported();
        if (r.view() >= 0 && r.view() == retryView && r.decidableWithout() && now - recoverySince >= patienceNanos) {
            // A recovery that waits as long for reports it can do without waits for members it may not reach. One
            // it cannot do without (it holds the state the others need) is waited for: excluded, it would leave
            // the rest not primary until it merged back.
            r.missing().stream().filter(m -> !m.equals(self) && !watched.contains(m)).forEach(watched::add);
        }
        stalls.tick(now, watched, patienceNanos, m -> net.urgent(m, Wire.encode(new Wire.Probe(now))),
                m -> net.exclude(m, "it held the group up (its acknowledgements, or its report to a recovery, did "
                        + "not come) and answered no probe for as long"));
        seqWatch.tick(now, patienceNanos, watchOut);
    }

    /**
     * Offload: the origin holding the lowest position this sequencer lacks. A hole stalls every member at once, so it
     * is watched sooner than a slow acknowledgement: once the position has been missing for a quarter of {@code
     * patienceNanos}, the origin is probed ({@link #holeStalls}), and excluded if it leaves the probes unanswered for
     * half of it (a paused or cut-off origin); once missing for four times {@code patienceNanos}, it is excluded
     * whatever it answers (its multicasts do not come).
     */
    private void watchHoles(long now, long patienceNanos) {
        HoleWatch.Hole h = sequencer.sequencing() ? sequencer.holes().tick(now, member.heldNow()) : null;
        List<MemberId> suspect = h == null || h.origin().equals(self) || now - h.sinceNanos() < patienceNanos / 4
                ? List.of() : List.of(h.origin());
        holeStalls.tick(now, suspect, patienceNanos / 2, m -> net.urgent(m, Wire.encode(new Wire.Probe(now))),
                m -> net.exclude(m, "position " + h.position() + " granted to it stayed unfilled, holding back every "
                        + "member, and it answered no probe"));
        if (!suspect.isEmpty() && now - h.sinceNanos() >= 4 * patienceNanos) {
            net.exclude(h.origin(), "position " + h.position() + " granted to it stayed unfilled for "
                    + (now - h.sinceNanos()) / 1_000_000 + " ms, holding back every member");
        }
    }

    /** {@code from} answered a probe. */
    void answered(MemberId from, long now) {
        stalls.answered(from, now);
        holeStalls.answered(from, now);
    }


    /**
     * The timer's retry of a recovery this member coordinates: every {@code intervalNanos}, it asks again the
     * members whose report has not arrived. A control message can be lost with a connection JGroups resets
     * around an exclusion and a merge; a recovery that waited for it waited until the next view. A member
     * answers a repeated request with the same report; one whose recovery already ended ignores it.
     */
    void retryRecovery(long now, long intervalNanos) {
        origin.retryRequest(now, intervalNanos);
        RecoveryCoordinator.Waiting r = sequencer.unreported();
        long view = r.view();
        if (view != retryView) {
            retryView = view;
            retryAt = now;
            recoverySince = now;
            return;
        }
        if (view < 0 || now - retryAt < intervalNanos) {
            return;
        }
        retryAt = now;
        for (MemberId m : r.missing()) {
            LOG.debug("{}: recovery of view {}: asking {} again for its report", self, view, m);
            toMember.accept(m, new Wire.StateReq(view, r.ballot()));
        }
    }

}
