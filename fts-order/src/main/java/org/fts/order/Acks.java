package org.fts.order;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.fts.gc.GroupConfig;
import org.fts.gc.MemberId;
import org.fts.gc.internal.EpochId;

/** The acknowledgement book of the open epoch a {@link Sequencer} orders: commit and stability points. */
final class Acks {
    private final MemberId self;
    private final GroupConfig config;
    private final Sequencer.Net net;
    private final Member member;
    private final boolean durable;
    /** Offload: no member may count on the sequencer holding an entry before it did: every commit is told. */
    private final boolean offload;
    /**
     * Its own lock, never the sequencer's monitor: the monitor's holder can block in a multicast waiting
     * for flow-control credits, which JGroups returns only after the up-call that received a message
     * completes; an ACK handled on such a thread must not wait.
     */
    private final Object lock = new Object();
    private EpochId epoch;
    private List<MemberId> members = List.of();
    private int majority;
    private final Map<MemberId, Long> acked = new HashMap<>();
    /**
     * Acknowledgements of a later epoch than the book's: members open an epoch, and acknowledge the opening, before its
     * sequencer may (it waits for repairs); counted once the book opens that epoch, else they would be lost.
     */
    private final Map<MemberId, Long> early = new HashMap<>();
    private long earlyView = -1;
    /** Per member, the System.nanoTime() of its last acknowledgement that advanced (or of the opening). */
    private final Map<MemberId, Long> progressed = new HashMap<>();
    private long emitted;
    /**
     * With a log, where the sequencer and one follower are a majority ({@code pair}): the most of its own synced
     * part it told the others, who deliver what their disks hold of it; a commit point they can work out so is
     * not multicast again.
     */
    private boolean pair;
    /** Whether a member of the epoch (the sequencer included) is a learner ({@code fts.group.voters}). */
    private boolean anyLearner;
    private long told;
    private long tailEnd;
    private volatile long stable;
    private volatile long committed;

    Acks(MemberId self, GroupConfig config, Sequencer.Net net, Member member, boolean durable, boolean offload) {
        this.offload = offload;
        this.self = self;
        this.config = config;
        this.net = net;
        this.member = member;
        this.durable = durable;
    }

    long stable() {
        return stable;
    }

    long committed() {
        return committed;
    }

    /**
     * Opens the book of epoch {@code e}, which continues the history up to {@code held}; of that history, only
     * up to {@code floor} is known to be held by a majority. The rest (the tail) commits once a majority of
     * {@code m} acknowledge it: each member acknowledges its opening. This member counts as holding up to
     * {@code ownCount} (with a log, what its disk holds), and more as it acknowledges to itself.
     */
    void open(EpochId e, List<MemberId> m, long held, long floor, long ownCount) {
        synchronized (lock) {
            epoch = e;
            members = m;
            majority = config.majority(m);
            acked.clear();
            progressed.clear();
            long now = System.nanoTime();
            m.forEach(x -> progressed.put(x, now));
            if (earlyView == e.view()) {
                early.forEach((x, h) -> {
                    if (m.contains(x)) {
                        acked.put(x, h);
                    }
                });
            }
            early.clear();
            earlyView = -1;
            emitted = Math.min(held, ownCount);
            pair = durable && !offload && config.uniform() && majority <= 2;
            // a learner works out no commit point from the sequencer and itself (they are not a majority): told each
            anyLearner = m.stream().anyMatch(x -> !config.votes(x));
            told = 0;
            tailEnd = held;
            stable = 0;
            committed = Math.min(floor, held);
        }
    }

    void emitted(EpochId e, long gseq) {
        update(e, self, gseq);
    }

    void onAck(MemberId src, long epochView, long held) {
        EpochId e;
        synchronized (lock) {
            e = epoch;
            if (!src.equals(self) && (e == null || epochView > e.view())) {
                if (epochView > earlyView) {
                    early.clear();
                    earlyView = epochView;
                }
                if (epochView == earlyView) {
                    early.merge(src, held, Math::max);
                }
                return;
            }
        }
        if (e != null && e.view() == epochView) {
            update(e, src, held);
        }
    }

    /**
     * Members that hold less than the commit point, so a majority moved on without them, and whose
     * acknowledgements have not advanced for {@code patienceNanos}: paused, starved, or cut off from this
     * member in one direction or both, which a failure detector may never notice while others still hear them.
     */
    List<MemberId> stalled(long now, long patienceNanos) {
        synchronized (lock) {
            if (epoch == null) {
                return List.of();
            }
            List<MemberId> out = new ArrayList<>();
            for (MemberId m : members) {
                if (!m.equals(self) && acked.getOrDefault(m, 0L) < committed
                        && now - progressed.getOrDefault(m, now) >= patienceNanos) {
                    out.add(m);
                }
            }
            return out;
        }
    }

    private void update(EpochId e, MemberId src, long held) {
        long c;
        long s;
        boolean advanced;
        boolean inTail;
        boolean repeat = false;
        boolean multicast;
        long holds;
        synchronized (lock) {
            if (!e.equals(epoch)) {
                return;
            }
            boolean tell = false;
            if (src.equals(self)) {
                emitted = Math.max(emitted, held);
                tell = pair && emitted > told;   // its disk holds more: a follower's own copy makes that committed
            } else {
                Long before = acked.get(src);
                if (before == null || held > before) {
                    acked.put(src, held);
                    progressed.put(src, System.nanoTime());
                } else if (held > 0 && committed > 0) {
                    repeat = true;   // a repeated acknowledgement: its sender may have missed the commit point
                }
            }
            Map<String, Long> perReplica = new LinkedHashMap<>();
            long min = Long.MAX_VALUE;
            for (MemberId m : members) {
                long h = m.equals(self) ? emitted : acked.getOrDefault(m, 0L);
                if (config.votes(m)) {   // a learner's copy counts toward no majority
                    perReplica.merge(m.replica(), h, Math::max);
                }
                min = Math.min(min, h);
            }
            List<Long> marks = new ArrayList<>(perReplica.values());
            marks.sort(java.util.Comparator.reverseOrder());
            c = marks.size() >= majority ? marks.get(majority - 1) : committed;
            advanced = c > committed;
            inTail = committed < tailEnd;   // followers' shortcut does not cover the tail: they must be told
            if (advanced) {
                committed = c;
            }
            c = committed;
            s = Math.max(stable, min == Long.MAX_VALUE ? 0 : min);
            stable = s;
            // Offload: also under agreed delivery, for the stability point (no ORD carries it). A pair's followers
            // work out a commit point up to what the sequencer told them its disk holds: not said again.
            multicast = tell || advanced && (offload || config.uniform() && (majority > 2 || anyLearner || inTail
                    || durable && (!pair || c > told)));
            if (multicast && pair) {
                told = emitted;
            }
            holds = pair ? told : 0;
        }
        if (repeat && !advanced) {
            net.toMember(src, new Wire.Commit(e.view(), c, s, holds));   // tell it again what it may have missed
        }
        if (advanced) {
            member.commit(e, c, s, 0);
        }
        if (multicast) {
            net.commitToOthers(new Wire.Commit(e.view(), c, s, holds));   // others cannot count on sequencer + self
        }
    }
}
