package org.fts.order;


import org.fts.gc.FailStop;
import org.fts.gc.GroupConfig;
import org.fts.gc.MemberId;
import org.fts.gc.View;
import org.fts.gc.internal.DeliveryPump;
import org.fts.gc.internal.EpochId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * FTS total order over reliable FIFO channels: one sequencer per epoch, a recovery at every view change that
 * establishes the next epoch only in a primary view, and uniform delivery. docs/group-communication.md gives
 * the protocol and the argument for each guarantee; in short:
 *
 * <ul>
 *   <li><b>Normal operation.</b> An origin ({@link Origin}) forwards each broadcast to its epoch's sequencer
 *       (FWD). The sequencer ({@link Sequencer}) numbers it (gseq), holds it, and multicasts it (ORD). Each
 *       member ({@link Member}) holds it and acknowledges (ACK). A member delivers an entry once a majority of
 *       the replicas hold it: at once when the sequencer and itself are a majority (three replicas), else when
 *       the sequencer says so (the commit point, on ORDs and COMMIT); the sequencer itself after the first
 *       acknowledgements. With {@code fts.delivery=agreed} a member delivers what it holds.</li>
 *   <li><b>Recovery, at every view change.</b> The view's coordinator asks every member for its state
 *       (STATE_REQ); each freezes (it holds no more entries of its old epoch) and reports (STATE). The
 *       coordinator decides ({@link org.fts.gc.internal.EpochPlan}): not primary (NOT_PRIMARY), or a new epoch
 *       that continues the most advanced history; members of that history's epoch are repaired up to it
 *       (SEND_REPAIR, REPAIR), the others skip to it with a gap (EPOCH). A member opens the epoch once it holds
 *       everything before it, and resends every broadcast of its own not yet delivered; the sequencer drops
 *       those already in the history (per-origin oseq marks), so each is delivered once.</li>
 * </ul>
 *
 * <p>Locks, always in this order: the origin's, the sequencer's monitor, the member's monitor (the read barriers'
 * {@link ReadConfirmer} and {@link ReadRequester} take theirs before the sequencer's and the member's; the
 * sequencer's acknowledgement book has its own, taken alone). Network sends happen under the first two only.
 */
public final class TotalOrder implements Member.Net, Sequencer.Net, Origin.Forwarder {
    /** The reliable FIFO channels this protocol runs on. */
    public interface Transport {
        /** Data: reliable, FIFO per destination, flow-controlled; silently dropped if {@code to} is gone. */
        void unicast(MemberId to, byte[] msg);

        /**
         * A small control message: reliable and FIFO like {@link #unicast}, but never held by flow control.
         * Control messages are sent from threads that deliver data; were they flow-controlled, such a thread
         * could wait for credits that only return once it finishes delivering.
         */
        void control(MemberId to, byte[] msg);

        /** Like {@link #control}, but may overtake earlier messages (acknowledgements carry maxima). */
        void urgent(MemberId to, byte[] msg);

        /**
         * Like {@link #urgent}, and it also reaches a member that recently left this member's view: a probe, and
         * its answer, must reach whoever asked whatever the views say (one member may have excluded another that
         * does not know it yet).
         */
        default void probe(MemberId to, byte[] msg) {
            urgent(to, msg);
        }

        /** Reliable, FIFO from this member, to every member except this one. */
        void multicast(byte[] msg);

        /** Like {@link #multicast}, not flow-controlled, and may overtake earlier messages. */
        void multicastUrgent(byte[] msg);

        /**
         * Asks the membership service to exclude {@code member}, which does not answer this member (the
         * sequencer) although others may still hear it; the next view goes on without it. None by default.
         */
        default void exclude(MemberId member) {
        }

        /** {@link #exclude}, saying why. */
        default void exclude(MemberId member, String why) {
            exclude(member);
        }

        /**
         * This member is not in {@code sequencer}'s view, although {@code stale} says it is: have the membership
         * service install a view of this member alone (which merges back). None by default.
         */
        default void leaveView(View stale, MemberId sequencer) {
        }
    }

    private static final Logger LOG = LoggerFactory.getLogger(TotalOrder.class);
    private static final int REPAIR_CHUNK_ENTRIES = 1_000;
    private static final int REPAIR_CHUNK_BYTES = 1 << 20;

    private final MemberId self;
    private final Transport net;
    private final Origin origin;
    private final Member member;
    private final Sequencer sequencer;
    private final OffloadSender offload;
    private final DeliveryPump pump;
    private final StallWatch stalls = new StallWatch();
    private final SequencerWatch seqWatch;
    /** The current view, for the answers to probes. */
    private volatile View view;
    private final SequencerWatch.Out watchOut;
    private final TimerDuties timer;
    private final ReadRequester reads;
    private final ReadConfirmer readRounds;
    /** The read barriers' clock, in nanoseconds (the protocol simulator's is virtual). */
    private java.util.function.LongSupplier readClock = System::nanoTime;

    /**
     * @param disk     the member's log ({@code fts.durability=log}), or null: with one, the member starts from what it
     *                 logged, and acknowledges only what its disk holds ({@link DurableLog#start} is called here)
     * @param ordering how broadcasts are ordered; every member of a group must use the same
     * @param sender   offload: where this member's DATA multicasts run (never a thread that delivers messages, when
     *                 the transport has flow control)
     */
    public TotalOrder(MemberId self, GroupConfig config, Transport net, DeliveryPump pump, MemberLog disk,
               Ordering ordering, java.util.concurrent.Executor sender) {
        this.self = self;
        this.net = net;
        this.pump = pump;
        this.origin = new Origin(self, this, ordering);
        this.member = new Member(self, config, pump, origin, this, disk, ordering);
        this.sequencer = new Sequencer(self, config, this, member, disk != null, ordering);
        this.offload = new OffloadSender(origin, member, net, sender, () -> ack(member.ackDue(false)));
        origin.lockOrder(sequencer, member);
        this.seqWatch = new SequencerWatch(self);
        this.watchOut = new WatchNet(net, () -> view);
        this.timer = new TimerDuties(self, net, origin, member, sequencer, stalls, seqWatch, watchOut, this::toMember);
        this.reads = new ReadRequester(member, pump, this::readIndex, config.uniform());
        this.readRounds = new ReadConfirmer(self, config, new ReadConfirmer.Net() {
            @Override
            public void ping(ReadWire.Ping ping) {
                net.multicastUrgent(Wire.encode(ping));
            }

            @Override
            public void answer(MemberId to, ReadWire.Answer answer) {
                if (to.equals(self)) {
                    reads.answered(self, answer, readClock.getAsLong());
                } else {
                    net.urgent(to, Wire.encode(answer));
                }
            }
        }, sequencer::readPoint);
        if (disk != null) {
            disk.start(() -> FailStop.guard(() -> {
                member.durableAdvanced();
                ack(member.ackDue(true));
            }));
        }
    }

    // ================================ application side ================================

    /** How many times this member suspected its sequencer ({@link SequencerWatch}). */
    long sequencerSuspicions() {
        return seqWatch.suspicions();
    }

    /** The bytes of a point-to-point message carrying {@code payload} ({@code GroupChannel.send}): {@link #receive}
     * at the destination hands it to the listener. */
    public static byte[] direct(byte[] payload) {
        return Wire.encode(new Wire.Direct(payload));
    }

    public void abcast(byte[] payload) {
        origin.abcast(payload);
    }

    public void synced() {
        member.synced();
    }

    /** A read barrier (docs/reads.md): ready once this member delivered up to a read index its sequencer confirmed. */
    public void readBarrier(org.fts.gc.ReadBarrier barrier) {
        reads.request(barrier, readClock.getAsLong());
    }

    /**
     * Whether {@code msg} is a message of the read barriers' protocol (index requests, pings, pongs, answers): a
     * binding hands these to a thread of their own, never a transport thread, for their handling may wait for this
     * sequencer's monitor (docs/reads.md, "Threads").
     */
    public static boolean isReadMessage(byte[] msg) {
        return msg.length > 0 && ReadWire.owns(msg[0]);
    }

    /** The timer's part in read barriers: unconfirmed ones are refused after {@link ReadRequester#TIMEOUT_NANOS}. */
    public void readTick(long now) {
        reads.tick(now);
        readRounds.tick(now);
    }

    private void readIndex(EpochId epoch, ReadWire.Index request) {
        if (epoch.sequencer().equals(self)) {
            readRounds.asked(self, request, readClock.getAsLong());
        } else {
            net.urgent(epoch.sequencer(), Wire.encode(request));
        }
    }

    /** The application fell behind: this member no longer holds the group's state until it is synced again. */
    public void unsynced() {
        member.unsynced();
    }

    // ================================ events ================================

    public void viewChanged(View v) {
        view = v;
        seqWatch.view(v, System.nanoTime());
        FailStop.guard(() -> {
            boolean recover;
            synchronized (origin.lock) {
                recover = sequencer.viewChanged(v);
            }
            Steps.runAll(member.viewChanged(v));
            readRounds.viewChanged();
            reads.viewChanged();
            if (recover) {
                long ballot = sequencer.ballot();
                LOG.debug("{}: coordinator of view {}: recovering with ballot {}", self, v, ballot);
                for (MemberId m : v.members()) {
                    toMember(m, new Wire.StateReq(v.id(), ballot));
                }
            }
        });
    }

    public void receive(MemberId src, byte[] msg) {
        if (msg.length == 0) {
            return;
        }
        Wire.Msg m;
        try {
            m = Wire.decode(msg);
        } catch (RuntimeException e) {
            LOG.warn("{}: dropped a malformed message from {}: {}", self, src, e.toString());
            return;
        }
        seqWatch.heard(src);
        FailStop.guard(() -> dispatch(src, m));
    }

    private void dispatch(MemberId src, Wire.Msg m) {
        if (m instanceof ReadWire.ReadMsg r) {
            read(src, r);
        } else if (m instanceof Wire.Ord o) {
            member.onOrd(src, o);
        } else if (m instanceof Wire.Data d) {
            member.onData(d);
        } else if (m instanceof Wire.Req r) {
            Steps.runAll(sequencer.onReq(src, r));
        } else if (m instanceof Wire.Grant g) {
            offload.onGrant(src, g);
        } else if (m instanceof Wire.Fwd f) {
            sequencer.onFwd(src, f);
        } else if (m instanceof Wire.Ack a) {
            sequencer.acks().onAck(src, a.epochView(), a.held());
        } else if (m instanceof Wire.Commit c) {
            member.commit(new EpochId(c.epochView(), src), c.committed(), c.stable(), c.sequencerHolds());
        } else if (m instanceof Wire.StateReq r) {
            Steps.runAll(member.onStateReq(src, r.view(), r.ballot()));
        } else if (m instanceof Wire.State s) {
            sequencer.onState(src, s);
        } else if (m instanceof Wire.Refused r) {
            Steps.runAll(sequencer.onRefused(src, r));
        } else if (m instanceof Wire.SendRepair r) {
            sendRepair(r.view(), r.target(), r.from(), r.upTo());
        } else if (m instanceof Wire.Repair r) {
            Steps.runAll(member.onRepair(r.view(), r.entries()));
        } else if (m instanceof Wire.EpochMsg e) {
            Steps.runAll(member.onEpoch(src, e));
        } else if (m instanceof Wire.NotPrimary n) {
            member.onNotPrimary(src, n.view(), n.reason());
        } else if (m instanceof Wire.MendCut c) {
            Steps.runAll(member.onMendCut(src, c.view(), c.after()));
        } else if (m instanceof Wire.Probe p) {
            View v = view;
            net.probe(src, Wire.encode(new Wire.ProbeReply(p.nonce(), v != null && v.contains(src), v == null ? -1 : v.id())));
        } else if (m instanceof Wire.ProbeReply r) {
            timer.answered(src, System.nanoTime());
            seqWatch.answered(src, r.member(), r.view(), watchOut);
        } else if (m instanceof Wire.ProbeFor f) {
            seqWatch.probeFor(src, f.target(), watchOut);
        } else if (m instanceof Wire.Vouch v) {
            seqWatch.vouched(v.target(), System.nanoTime());
        } else if (m instanceof Wire.Unreachable u) {
            seqWatch.unreachable(u.target(), System.nanoTime(), watchOut);
        } else if (m instanceof Wire.Direct d) {
            pump.direct(src, d.payload());
        } else {
            LOG.warn("{}: dropped an unexpected {} from {}", self, m.getClass().getSimpleName(), src);
        }
    }

    private void read(MemberId src, ReadWire.ReadMsg m) {
        if (m instanceof ReadWire.Index i) {
            readRounds.asked(src, i, readClock.getAsLong());
        } else if (m instanceof ReadWire.Ping p) {
            EpochId e = member.epoch();   // only a member that still follows the pinging sequencer's epoch says so
            if (e != null && e.view() == p.epochView() && e.sequencer().equals(src)) {
                net.urgent(src, Wire.encode(new ReadWire.Pong(p.epochView(), p.round())));
            }
        } else if (m instanceof ReadWire.Pong p) {
            readRounds.ponged(src, p, readClock.getAsLong());
        } else if (m instanceof ReadWire.Answer a) {
            reads.answered(src, a, readClock.getAsLong());
        }
    }

    /** After a batch of received messages: one ACK for all the ORDs it held. */
    public void afterBatch() {
        ack(member.ackDue(false));
    }

    /**
     * One tick of the stall, hole and sequencer watches ({@link TimerDuties#watchStalls}). After
     * {@link #retryRecovery} in the same tick.
     */
    public void watchStalls(long now, long patienceNanos) {
        timer.watchStalls(now, patienceNanos);
    }

    /** The timer's retries: of this origin's request, and of the recovery this member coordinates. */
    public void retryRecovery(long now, long intervalNanos) {
        timer.retryRecovery(now, intervalNanos);
    }

    /** The timer's ACK, for stability when traffic alone did not send one. */
    public void ackIfMoved() {
        ack(member.ackDue(true));
    }

    private void ack(AckSchedule.Due due) {
        if (due != null) {
            EpochId e = member.epoch();
            if (e != null && e.view() == due.view()) {
                ack(e, due.held());
            }
        }
    }

    // ================================ Member.Net, Sequencer.Net, Origin.Forwarder ================================

    @Override
    public void state(MemberId to, Wire.State s) {
        toMember(to, s);
    }

    @Override
    public void refused(MemberId to, Wire.Refused r) {
        toMember(to, r);
    }

    @Override
    public void ack(EpochId epoch, long held) {
        if (epoch.sequencer().equals(self)) {
            sequencer.acks().onAck(self, epoch.view(), held);
        } else {
            net.urgent(epoch.sequencer(), Wire.encode(new Wire.Ack(epoch.view(), held)));
        }
    }

    @Override
    public void sequencerOpen(EpochId epoch, long start) {
        Steps.runAll(sequencer.open(epoch, start));
    }

    @Override
    public void grant(MemberId to, Wire.Grant g) {
        if (to.equals(self)) {
            offload.onGrant(self, g);
        } else {
            net.control(to, Wire.encode(g));
        }
    }

    @Override
    public void request(EpochId epoch, Wire.Req req) {
        if (epoch.sequencer().equals(self)) {
            Steps.runAll(sequencer.onReq(self, req));
        } else {
            net.control(epoch.sequencer(), Wire.encode(req));
        }
    }

    @Override
    public void ordToOthers(Wire.Ord o) {
        net.multicast(Wire.encode(o));
    }

    @Override
    public void commitToOthers(Wire.Commit c) {
        net.multicastUrgent(Wire.encode(c));
    }

    @Override
    public void repair(MemberId source, long view, MemberId target, long from, long upTo) {
        if (source.equals(self)) {
            sendRepair(view, target, from, upTo);
        } else {
            net.control(source, Wire.encode(new Wire.SendRepair(view, target, from, upTo)));
        }
    }

    @Override
    public void forward(MemberId sequencerMember, long oseq, long firstUnacked, byte[] payload) {
        Wire.Fwd f = new Wire.Fwd(oseq, firstUnacked, payload);
        if (sequencerMember.equals(self)) {
            sequencer.onFwd(self, f);
        } else {
            net.unicast(sequencerMember, Wire.encode(f));
        }
    }

    /** Messages of the recovery to one member: to this one, a direct call. */
    @Override
    public void toMember(MemberId to, Wire.Msg m) {
        if (!to.equals(self)) {
            net.control(to, Wire.encode(m));
        } else if (m instanceof Wire.StateReq r) {
            Steps.runAll(member.onStateReq(self, r.view(), r.ballot()));
        } else if (m instanceof Wire.State s) {
            sequencer.onState(self, s);
        } else if (m instanceof Wire.Refused r) {
            Steps.runAll(sequencer.onRefused(self, r));
        } else if (m instanceof Wire.EpochMsg e) {
            Steps.runAll(member.onEpoch(self, e));
        } else if (m instanceof Wire.NotPrimary n) {
            member.onNotPrimary(self, n.view(), n.reason());
        } else if (m instanceof Wire.MendCut c) {
            Steps.runAll(member.onMendCut(self, c.view(), c.after()));
        }
    }

    /** As the recovery's source: sends {@code target} its missing entries, in chunks. */
    private void sendRepair(long view, MemberId target, long from, long upTo) {
        RepairSender.send(member.entries(from, upTo), REPAIR_CHUNK_ENTRIES, REPAIR_CHUNK_BYTES, chunk -> {
            if (target.equals(self)) {
                Steps.runAll(member.onRepair(view, chunk));
            } else {
                net.unicast(target, Wire.encode(new Wire.Repair(view, chunk)));
            }
        });
    }

    // ================================ for tests and stats ================================

    int unackedCount() {
        return origin.unackedCount();
    }

    int logSize() {
        return member.logSize();
    }

    /** What this member holds in memory, by position (diagnostics; the protocol simulator's accounting). */
    java.util.Map<Long, byte[]> heldPayloads() {
        return member.heldPayloads();
    }

    /** One line for diagnostics: the member's standing, the sequencer's marks, this origin's backlog. */
    public String describe() {
        return member.describe() + " seqCommitted=" + sequencer.acks().committed() + " seqStable="
                + sequencer.acks().stable() + " unacked=" + origin.unackedCount();
    }

    Phase phase() {
        return member.phase();
    }

    /** The counters' MBean over this member's roles. */
    public OrderStats stats(Ordering ordering) {
        return new OrderStats(member, sequencer, origin, seqWatch, ordering, reads, readRounds);
    }

    /** For the protocol simulator only: the read barriers' clock. */
    void readClock(java.util.function.LongSupplier clock) {
        this.readClock = clock;
    }

    /** For the protocol simulator only: observe deliveries and epoch openings. */
    void tap(MemberTap t) {
        member.tap(t);
    }
}
