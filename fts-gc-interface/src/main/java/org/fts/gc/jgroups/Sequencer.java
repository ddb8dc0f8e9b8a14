package org.fts.gc.jgroups;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.fts.gc.MemberId;
import org.fts.gc.View;
import org.fts.gc.jgroups.Wire.Entry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sequencer role of {@link TotalOrder}, active on the view's coordinator: orders forwards (FWD) into
 * ORD multicasts, tracks acknowledgements for the stability point, and runs the recovery that opens each new
 * epoch. Guarded by its own monitor, which is taken after the origin lock and before the member's monitor.
 */
final class Sequencer {
    private static final Logger LOG = LoggerFactory.getLogger(Sequencer.class);

    private final MemberId self;
    private final TotalOrder.Transport net;
    private final TotalOrder member;
    private MemberId coordinator;
    private boolean sequencing;
    private long seqEpoch;
    private long nextGseq;
    private long seqStart;
    private long awaitingOpen = -1;
    private List<MemberId> seqMembers = List.of();
    private final Map<MemberId, Long> sequencedOseq = new HashMap<>();
    /**
     * Acknowledgements have their own lock, never the monitor: the monitor's holder can block in a multicast
     * waiting for flow-control credits, and JGroups returns a credit only after the up-call that received
     * the message completes; an ACK handled on such a thread (the sequencer's own loopback) must not wait.
     */
    private final Map<MemberId, Long> acked = new HashMap<>();
    private List<MemberId> ackMembers = List.of();
    private volatile long stable;
    private final List<Fwd> queued = new ArrayList<>();
    private final Map<MemberId, TreeMap<Long, Fwd>> parked = new HashMap<>();
    private Recovery recovery;

    /** A forward as the sequencer received it. */
    private record Fwd(MemberId origin, long oseq, long firstUnacked, byte[] payload) {
    }

    Sequencer(MemberId self, TotalOrder.Transport net, TotalOrder member) {
        this.self = self;
        this.net = net;
        this.member = member;
    }

    void onFwd(MemberId origin, long oseq, long firstUnacked, byte[] payload) {
        synchronized (this) {
            if (!self.equals(coordinator) || !seqMembers.contains(origin)) {
                // Stale (this member is no longer the sequencer), or early (the origin is in a view this
                // member has not installed yet): ordered now, it would be ordered in an epoch nobody follows.
                // The origin resends to the right sequencer when it resumes in the new epoch.
                LOG.debug("{}: FWD {} of {} dropped: not the sequencer of a view with it", self, oseq, origin);
                return;
            }
            Fwd f = new Fwd(origin, oseq, firstUnacked, payload);
            if (!sequencing) {
                queued.add(f);
                return;
            }
            sequence(f);
        }
    }

    /**
     * Orders an origin's broadcasts strictly in its oseq order, each once. Below the origin's lowest unacked
     * oseq everything is ordered already (the origin delivered it); a forward that skips ahead (an older one
     * was lost with a dead sequencer, or dropped before this member knew its role) is parked until the
     * origin's resend fills the gap, rather than ordered first and the older ones then dropped as old.
     */
    private void sequence(Fwd f) {
        MemberId o = f.origin();
        long base = Math.max(sequencedOseq.getOrDefault(o, 0L), f.firstUnacked() - 1);
        TreeMap<Long, Fwd> waiting = parked.get(o);
        if (f.oseq() > base + 1) {
            LOG.debug("{}: parked FWD {} of {} (ordered up to {}, first unacked {})", self, f.oseq(), o,
                    sequencedOseq.get(o), f.firstUnacked());
            parked.computeIfAbsent(o, k -> new TreeMap<>()).put(f.oseq(), f);
            return;
        }
        if (f.oseq() > base) {
            emit(f);
            base = f.oseq();
        }
        if (waiting != null) {
            waiting.headMap(base, true).clear();
            for (Fwd next = waiting.remove(base + 1); next != null; next = waiting.remove(base + 1)) {
                emit(next);
                base = next.oseq();
            }
            if (waiting.isEmpty()) {
                parked.remove(o);
            }
        }
        sequencedOseq.put(o, base);
    }

    private void emit(Fwd f) {
        net.multicast(Wire.ord(seqEpoch, stable, new Entry(nextGseq++, f.origin(), f.oseq(), f.payload())));
    }

    void onAck(MemberId src, long gseq) {
        synchronized (acked) {
            acked.merge(src, gseq, Math::max);
            long min = Long.MAX_VALUE;
            for (MemberId m : ackMembers) {
                min = Math.min(min, acked.getOrDefault(m, 0L));
            }
            stable = Math.max(stable, min == Long.MAX_VALUE ? 0 : min);
        }
    }

    private long acked(MemberId m) {
        synchronized (acked) {
            return acked.getOrDefault(m, 0L);
        }
    }

    void onState(MemberId src, long viewId, long isFresh, long theirLast) {
        List<Runnable> actions = new ArrayList<>();
        synchronized (this) {
            Recovery r = recovery;
            if (r == null || r.viewId() != viewId || !r.report(src, isFresh == 1, theirLast)) {
                return;
            }
            Recovery.Plan plan = r.plan(self);
            for (Recovery.Repair rp : plan.repairs()) {
                actions.add(rp.holder().equals(self)
                        ? () -> member.onSendRepair(viewId, rp.target(), rp.from(), rp.upTo())
                        : () -> net.control(rp.holder(), Wire.sendRepair(viewId, rp.target(), rp.from(), rp.upTo())));
            }
            for (MemberId m : r.members()) {
                long catchUp = plan.catchUp().get(m);
                actions.add(m.equals(self)
                        ? () -> member.onEpoch(self, viewId, viewId, plan.start(), catchUp)
                        : () -> net.control(m, Wire.longs(Wire.EPOCH, viewId, viewId, plan.start(), catchUp)));
            }
            LOG.debug("{}: recovery of view {}: epoch opens at {}, repairs {}", self, viewId, plan.start(),
                    plan.repairs());
            seqEpoch = viewId;
            seqStart = plan.start();
            nextGseq = plan.start();
            awaitingOpen = viewId;
            recovery = null;
        }
        Recovery.runAll(actions);
    }

    /** Called once this member, as sequencer, has caught up to the epoch it opened. */
    void openEpoch(long epochId) {
        synchronized (this) {
            if (awaitingOpen != epochId || !self.equals(coordinator)) {
                return;   // superseded by a newer view
            }
            awaitingOpen = -1;
            // What counts as ordered is what was delivered up to this epoch's start, and nothing more: a
            // forward ordered in an epoch nobody delivered (a race with a view change) must be ordered again.
            sequencedOseq.clear();
            sequencedOseq.putAll(member.deliveredOseq());
            sequencing = true;
            LOG.debug("{}: sequencing epoch {} from {}; {} forwards queued; ordered so far {}", self, epochId,
                    nextGseq, queued.size(), sequencedOseq);
            List<Fwd> waiting = new ArrayList<>(queued);
            queued.clear();
            waiting.forEach(this::sequence);
        }
    }

    /**
     * Follows a view change; returns whether this member, as the view's sequencer, starts a recovery (the
     * caller then asks every member for its state).
     */
    synchronized boolean viewChanged(View v, MemberId oldCoord) {
        coordinator = v.coordinator();
        boolean isCoord = self.equals(v.coordinator());
        // Recover when this member becomes sequencer, on a merge, and when a departure may have taken away
        // the member that was repairing a survivor not yet caught up (its ACK confirms it caught up).
        boolean someoneLeft = !v.members().containsAll(seqMembers);
        boolean unconfirmed = false;
        for (MemberId m : seqMembers) {
            unconfirmed |= v.contains(m) && acked(m) < seqStart - 1;
        }
        unconfirmed &= someoneLeft;
        seqMembers = v.members();
        synchronized (acked) {
            ackMembers = v.members();
            acked.keySet().retainAll(v.members());
        }
        parked.keySet().retainAll(v.members());   // a departed origin's parked forwards die with it
        boolean startRecovery = isCoord && (!self.equals(oldCoord) || v.isMerge() || recovery != null
                || awaitingOpen >= 0 || unconfirmed);
        if (!isCoord) {
            sequencing = false;
            recovery = null;
            awaitingOpen = -1;
            queued.clear();
            parked.clear();
        } else if (startRecovery) {
            sequencing = false;
            awaitingOpen = -1;
            recovery = new Recovery(v.id(), v.members(), v.subgroups());
        }
        return startRecovery;
    }
}
