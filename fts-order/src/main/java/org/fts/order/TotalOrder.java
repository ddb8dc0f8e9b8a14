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
public final class TotalOrder {
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
         * A batch's acknowledgement to {@code to}, its sequencer, under uniform delivery, from a member with no
         * broadcast of its own on the way (one that forwards uses {@link #urgent}): like {@link #urgent}, and it
         * may also be lost. An acknowledgement carries a maximum, and the member's timer repeats it reliably while it
         * holds entries it does not know committed ({@link AckSchedule}), so a lost one costs at most a tick, never the
         * commit. A binding may send it outside its reliable channel and handle it on the thread that received it.
         * {@link #urgent} by default.
         */
        default void ack(MemberId to, byte[] msg) {
            urgent(to, msg);
        }

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

    /** Where messages go, in and out ({@link Switchboard}); it reads the roles below as it routes. */
    private final Switchboard board;
    final MemberId self;
    final GroupConfig config;
    final Transport net;
    final Origin origin;
    final Member member;
    final Sequencer sequencer;
    final OffloadSender offload;
    final DeliveryPump pump;
    final StallWatch stalls = new StallWatch();
    final SequencerWatch seqWatch;
    /** The current view, for the answers to probes. */
    volatile View view;
    final SequencerWatch.Out watchOut;
    final TimerDuties timer;
    final ReadRequester reads;
    final ReadConfirmer readRounds;
    /** The read barriers' clock, in nanoseconds (the protocol simulator's is virtual). */
    java.util.function.LongSupplier readClock = System::nanoTime;
    /** The member's log, or null. */
    private final MemberLog disk;
    /**
     * How long this incarnation holds its first report: its own lease, or the longer one its log says a predecessor
     * may have granted ({@link LeaseFile}).
     */
    private final long firstHold;
    /** What the shipped observer counted (a fresh one, never told, under the simulator's). */
    private final EpochCounts epochs;
    /** Guarded by this: with a log whose record is longer than this incarnation's lease, when to lower it (read clock). */
    private long lowerLeaseRecordAt;
    private boolean lowerLeaseRecord;

    /**
     * @param disk     the member's log ({@code fts.durability=log}), or null: with one, the member starts from what it
     *                 logged, and acknowledges only what its disk holds ({@link DurableLog#start} is called here)
     * @param ordering how broadcasts are ordered; every member of a group must use the same
     * @param sender   offload: where this member's DATA multicasts run (never a thread that delivers messages, when
     *                 the transport has flow control)
     */
    public TotalOrder(MemberId self, GroupConfig config, Transport net, DeliveryPump pump, MemberLog disk,
               Ordering ordering, java.util.concurrent.Executor sender) {
        this(self, config, net, pump, disk, ordering, sender, new EpochCounts());
    }

    /** @param observer told of every delivery and epoch opening, under the member's monitor ({@link MemberObserver}) */
    TotalOrder(MemberId self, GroupConfig config, Transport net, DeliveryPump pump, MemberLog disk,
               Ordering ordering, java.util.concurrent.Executor sender, MemberObserver observer) {
        this.self = self;
        this.config = config;
        this.net = net;
        this.pump = pump;
        this.disk = disk;
        long recorded = disk == null ? 0 : disk.leaseOnRecord();
        if (disk != null && config.readLeaseNanos() > recorded) {
            disk.recordLease(config.readLeaseNanos());   // before this incarnation grants anything
        }
        this.firstHold = Math.max(config.readLeaseNanos(), recorded);
        this.lowerLeaseRecord = recorded > config.readLeaseNanos();
        if (lowerLeaseRecord) {
            LOG.info("{}: fts.reads.lease is {} ms, but a predecessor may have granted {} ms: its first report waits "
                    + "that long", self, config.readLeaseNanos() / 1_000_000, recorded / 1_000_000);
        }
        this.board = new Switchboard(this);
        this.origin = new Origin(self, board, ordering);
        this.member = new Member(self, config, pump, origin, board, disk, ordering, observer);
        this.epochs = observer instanceof EpochCounts c ? c : new EpochCounts();
        this.sequencer = new Sequencer(self, config, board, member, disk != null, ordering);
        this.offload = new OffloadSender(origin, member, net, sender, () -> ack(member.ackDue(false)));
        origin.lockOrder(sequencer, member);
        this.seqWatch = new SequencerWatch(self);
        this.watchOut = new WatchNet(net, () -> view);
        this.timer = new TimerDuties(self, net, origin, member, sequencer, stalls, seqWatch, watchOut, board::toMember);
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
        }, sequencer::readPoint, () -> readClock.getAsLong());
        member.leaseStart(readClock.getAsLong(), firstHold);
        lowerLeaseRecordAt = readClock.getAsLong() + firstHold;
        if (disk != null) {
            disk.start(() -> FailStop.guard(() -> {
                member.durableAdvanced();
                ack(member.ackDue(true));
            }));
        }
    }

    // ================================ application side ================================

    /** The bytes of a point-to-point message carrying {@code payload} ({@code GroupChannel.send}): {@link #receive}
     * at the destination hands it to the listener. */
    public static byte[] direct(byte[] payload) {
        return Wire.encode(new Wire.Direct(payload));
    }

    public void abcast(byte[] payload) {
        if (!origin.forwarding()) {
            pump.flush();   // replays that wait go now, during this broadcast's round trip, not ahead of its reply
        }
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

    /**
     * Whether {@code length} bytes of {@code array} from {@code offset} are an acknowledgement ({@link
     * Transport#ack}): its handling waits for no monitor but the acknowledgement book's and the member's short one,
     * and sends nothing under flow control, so a binding may run it on the thread that received it.
     */
    public static boolean isAck(byte[] array, int offset, int length) {
        return Wire.isAck(array, offset, length);
    }

    /** The timer's part in read barriers: unconfirmed ones are refused after {@link ReadRequester#TIMEOUT_NANOS}. */
    public void readTick(long now) {
        reads.tick(now);
        readRounds.tick(now);
        board.releaseReports();
        lowerLeaseRecord(now);
    }

    /**
     * Once every grant a predecessor may have made has run out, the record comes down to this incarnation's lease
     * (synced; on the timer, under no lock of the member's).
     */
    private void lowerLeaseRecord(long now) {
        synchronized (this) {
            if (!lowerLeaseRecord || now - lowerLeaseRecordAt < 0) {
                return;
            }
            lowerLeaseRecord = false;
        }
        disk.recordLease(config.readLeaseNanos());
    }

    private void readIndex(EpochId epoch, ReadWire.Index request) {
        if (epoch.sequencer().equals(self)) {
            readRounds.asked(self, request);
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
                    board.toMember(m, new Wire.StateReq(v.id(), ballot));
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
        FailStop.guard(() -> board.dispatch(src, m));
    }

    /**
     * After a batch of received messages: one ACK for all the ORDs it held, then their delivery. A binding calls it
     * after every batch it passed to {@link #receive} (ORDs wait for it to be delivered).
     */
    public void afterBatch() {
        ack(member.ackDue(false));
        member.deliverAfterAck();
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
                // Lossy only while this member forwards nothing: a flood of forwards whose sender's ACKs all went
                // outside UNICAST3 ran at a quarter to a half of its rate (docs/group-communication.md).
                board.ack(e, due.held(), due.lossy() && !origin.forwarding());
            }
        }
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
        return new OrderStats(member, sequencer, origin, seqWatch, ordering, reads, readRounds, epochs);
    }

    /** For the protocol simulator only: the read barriers' clock. */
    void readClock(java.util.function.LongSupplier clock) {
        this.readClock = clock;
        member.leaseStart(clock.getAsLong(), firstHold);
        synchronized (this) {
            lowerLeaseRecordAt = clock.getAsLong() + firstHold;
        }
    }
}
