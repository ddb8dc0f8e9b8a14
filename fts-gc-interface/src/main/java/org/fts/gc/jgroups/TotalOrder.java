package org.fts.gc.jgroups;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentSkipListMap;

import org.fts.gc.MemberId;
import org.fts.gc.View;
import org.fts.gc.internal.DeliveryPump;
import org.fts.gc.jgroups.Wire.Entry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * FTS total order over reliable FIFO channels: a fixed sequencer (the view's coordinator) with recovery at
 * every sequencer change. See docs/group-communication.md ("Why not SEQUENCER") for the measured reason it
 * replaces JGroups' SEQUENCER, which loses survivors' messages when the sequencer dies.
 *
 * <ul>
 *   <li>An origin numbers its broadcasts (oseq) and forwards each to the sequencer (FWD), keeping it until it
 *       delivers it back; the sequencer gives it the next global number (gseq) of its epoch and multicasts it
 *       (ORD). Members deliver ORDs from their view's coordinator only, in gseq order (FIFO from one sender).</li>
 *   <li>Every member keeps what it delivered above the stability point (the lowest gseq acknowledged by all
 *       members, piggybacked on ORDs).</li>
 *   <li>When a member becomes sequencer (or a view merges, or a recovery is interrupted), it opens recovery:
 *       every member freezes (delivers no more ORDs of the old epoch) and reports its last gseq (STATE); the
 *       most advanced member sends each lagging member the entries it misses (REPAIR); the sequencer then opens
 *       a new epoch at max+1 (EPOCH). A member resumes once it has caught up, and resends to the new
 *       sequencer every broadcast of its own not yet delivered; the sequencer drops those it already ordered
 *       (per-origin oseq), so each is delivered exactly once.</li>
 * </ul>
 *
 * <p>This class is the origin and the member; the sequencer role is {@link Sequencer}. Locks, always taken
 * in this order, never the reverse: {@code originLock} (oseq and FWD order), then the {@link Sequencer}'s
 * monitor (sequencer state and ORD order), then this member's monitor. Network sends happen under the first
 * two only.
 */
final class TotalOrder {
    /** The reliable FIFO channels this protocol runs on. */
    interface Transport {
        /** Data: reliable, FIFO per destination, flow-controlled; silently dropped if {@code to} is gone. */
        void unicast(MemberId to, byte[] msg);

        /**
         * A small control message (ACK, STATE_REQ, STATE, SEND_REPAIR, EPOCH): reliable and FIFO like
         * {@link #unicast}, but never held by flow control. Control messages are sent from threads that
         * deliver data; were they flow-controlled, such a thread could wait for credits that only return once
         * it finishes delivering, and the group would crawl from one flow-control timeout to the next.
         */
        void control(MemberId to, byte[] msg);

        /** Reliable, FIFO from this member, to every member including this one. */
        void multicast(byte[] msg);
    }

    private static final Logger LOG = LoggerFactory.getLogger(TotalOrder.class);
    private static final int ACK_EVERY = 512;
    private static final int REPAIR_CHUNK = 1_000;

    private final MemberId self;
    private final Transport net;
    private final DeliveryPump pump;
    private final Sequencer sequencer;

    // --- origin side, guarded by originLock (unacked is concurrent: delivery removes from it) ---
    private final Object originLock = new Object();
    private long nextOseq = 1;
    private final ConcurrentSkipListMap<Long, byte[]> unacked = new ConcurrentSkipListMap<>();
    private volatile MemberId coord;
    private volatile boolean mayForward = true;
    /** Set when this member resumes after a recovery: every unacked broadcast goes again, before any new one. */
    private volatile boolean resendPending;

    // --- member side, guarded by this ---
    private View view;
    private long epoch = -1;
    private boolean fresh = true;
    private long last;
    private long lastAcked;
    private long frozenFor = -1;
    private long pendingEpoch = -1;
    private long pendingStart;
    private long pendingCatchUp;
    private long[] stashedStateReq;   // {viewId} of a STATE_REQ that arrived before its view
    private MemberId stashedStateReqFrom;
    private final TreeMap<Long, Entry> log = new TreeMap<>();
    private final TreeMap<Long, Entry> repairs = new TreeMap<>();
    private final List<EarlyOrd> early = new ArrayList<>();
    private final Map<MemberId, Long> deliveredOseq = new HashMap<>();
    private List<Object[]> preView = new ArrayList<>();   // {src, msg} received before the first view

    /** An ORD of an epoch this member has not opened yet. */
    private record EarlyOrd(long epoch, Entry entry) {
    }

    TotalOrder(MemberId self, Transport net, DeliveryPump pump) {
        this.self = self;
        this.net = net;
        this.pump = pump;
        this.sequencer = new Sequencer(self, net, this);
    }

    // ================================ application side ================================

    void abcast(byte[] payload) {
        synchronized (originLock) {
            long oseq = nextOseq++;
            unacked.put(oseq, payload);
            MemberId c = coord;
            if (!mayForward || c == null) {
                return;   // resent when this member resumes after the recovery
            }
            if (resendPending) {
                resendLocked(c);   // this one included: forwards leave in oseq order, or the sequencer drops
            } else {
                forward(c, oseq, payload);
            }
        }
    }

    /**
     * Called under originLock. Deliveries remove from {@code unacked} without that lock, so it may already
     * have lost this very broadcast (then the sequencer drops the forward as already ordered).
     */
    private void forward(MemberId to, long oseq, byte[] payload) {
        Map.Entry<Long, byte[]> first = unacked.firstEntry();
        long firstUnacked = first == null ? oseq : Math.min(first.getKey(), oseq);
        if (to.equals(self)) {
            sequencer.onFwd(self, oseq, firstUnacked, payload);
        } else {
            net.unicast(to, Wire.fwd(oseq, firstUnacked, payload));
        }
    }

    private void resendUnacked() {
        synchronized (originLock) {
            MemberId c = coord;
            if (c != null && mayForward && resendPending) {
                resendLocked(c);
            }
        }
    }

    private void resendLocked(MemberId c) {
        resendPending = false;
        LOG.debug("{}: resends {} unacked broadcasts to {}", self, unacked.size(), c);
        unacked.forEach((oseq, payload) -> forward(c, oseq, payload));
    }

    /** Sends ACK for what this member has ordered, if it moved (called by the channel's timer). */
    void ackIfMoved() {
        long ack;
        MemberId c;
        synchronized (this) {
            if (fresh || last <= lastAcked) {
                return;
            }
            lastAcked = last;
            ack = last;
            c = coord;
        }
        sendAck(c, ack);
    }

    private void sendAck(MemberId c, long ack) {
        if (c == null) {
            return;
        }
        if (c.equals(self)) {
            sequencer.onAck(self, ack);
        } else {
            net.control(c, Wire.longs(Wire.ACK, ack));
        }
    }

    // ================================ message dispatch ================================

    void receive(MemberId src, byte[] msg) {
        if (msg.length == 0) {
            return;
        }
        synchronized (this) {
            if (preView != null) {
                // JGroups may hand a joiner the sequencer's broadcasts before its first view: they are
                // ordered after that view, so they are kept, and replayed in arrival order once it is
                // installed; later arrivals queue behind them until the replay has caught up.
                preView.add(new Object[] {src, msg});
                return;
            }
        }
        dispatch(src, msg);
    }

    private void dispatch(MemberId src, byte[] msg) {
        try {
            ByteBuffer b = Wire.read(msg);
            switch (msg[0]) {
                case Wire.FWD -> sequencer.onFwd(src, b.getLong(), b.getLong(), Wire.rest(b));
                case Wire.ORD -> onOrd(src, b);
                case Wire.ACK -> sequencer.onAck(src, b.getLong());
                case Wire.STATE_REQ -> onStateReq(src, b.getLong());
                case Wire.STATE -> sequencer.onState(src, b.getLong(), b.getLong(), b.getLong());
                case Wire.SEND_REPAIR -> onSendRepair(b.getLong(), Wire.readName(b), b.getLong(), b.getLong());
                case Wire.REPAIR -> onRepair(b.getLong(), Wire.readRepair(b));
                case Wire.EPOCH -> onEpoch(src, b.getLong(), b.getLong(), b.getLong(), b.getLong());
                case Wire.DIRECT -> pump.direct(src, Wire.rest(b));
                default -> LOG.warn("{}: dropped a message of unknown type {} from {}", self, msg[0], src);
            }
        } catch (RuntimeException e) {
            LOG.warn("{}: dropped a malformed message from {}: {}", self, src, e.toString());
        }
    }

    // ================================ member ================================

    private void onOrd(MemberId src, ByteBuffer b) {
        long ep = b.getLong();
        long gseq = b.getLong();
        long st = b.getLong();
        Entry e = Wire.readOrdEntry(b, gseq);
        MemberId ackTo = null;
        long ack = 0;
        synchronized (this) {
            if (view == null || !src.equals(view.coordinator())) {
                LOG.debug("{}: ORD {} of epoch {} from {}, not the coordinator of {}", self, gseq, ep, src, view);
                return;   // only the current sequencer orders; recovery brings what a dead one left
            }
            if (fresh && frozenFor < 0 && pendingEpoch < 0) {
                epoch = ep;
                fresh = false;
                last = gseq - 1;
            }
            if (ep == epoch) {
                if (frozenFor >= 0 || gseq <= last) {
                    return;   // old epoch while recovering, or a duplicate
                }
                if (gseq != last + 1) {
                    // Cannot happen over FIFO channels; held back rather than delivered out of order.
                    LOG.error("{}: ORD {} after {} in epoch {}: FIFO from the sequencer was broken", self, gseq, last, ep);
                    repairs.put(gseq, e);
                    return;
                }
                deliverLocked(e);
                for (Entry next = repairs.remove(last + 1); next != null; next = repairs.remove(last + 1)) {
                    deliverLocked(next);
                }
                if (st > 0 && !log.isEmpty() && log.firstKey() <= st) {
                    log.headMap(st, true).clear();
                }
                if (last - lastAcked >= ACK_EVERY) {
                    lastAcked = last;
                    ack = last;
                    ackTo = src;
                }
            } else if (frozenFor >= 0) {
                early.add(new EarlyOrd(ep, e));   // the new epoch, overtaking its EPOCH message
            } else {
                LOG.warn("{}: dropped ORD {} of epoch {} while following epoch {}", self, gseq, ep, epoch);
            }
        }
        if (ackTo != null) {
            sendAck(ackTo, ack);
        }
    }

    private void deliverLocked(Entry e) {
        last = e.gseq();
        log.put(e.gseq(), e);
        deliveredOseq.merge(e.origin(), e.oseq(), Math::max);
        if (e.origin().equals(self)) {
            unacked.headMap(e.oseq(), true).clear();
        }
        pump.broadcast(e.origin(), e.payload().clone());   // the log keeps the original for repairs
    }

    private void onStateReq(MemberId src, long viewId) {
        long[] reply;
        synchronized (this) {
            if (view == null || viewId > view.id()) {
                stashedStateReq = new long[] {viewId};   // answered when that view is installed here
                stashedStateReqFrom = src;
                return;
            }
            if (viewId != view.id() || !src.equals(view.coordinator())) {
                return;
            }
            reply = freezeLocked(viewId);
        }
        sendState(src, viewId, reply);
    }

    private long[] freezeLocked(long viewId) {
        frozenFor = viewId;
        mayForward = false;
        pendingEpoch = -1;
        repairs.clear();
        early.clear();   // the next epoch's ORDs all follow this freeze (they need this member's STATE)
        return new long[] {fresh ? 1 : 0, last};
    }

    private void sendState(MemberId to, long viewId, long[] state) {
        if (to.equals(self)) {
            sequencer.onState(self, viewId, state[0], state[1]);
        } else {
            net.control(to, Wire.longs(Wire.STATE, viewId, state[0], state[1]));
        }
    }

    void onSendRepair(long viewId, MemberId target, long fromExclusive, long toInclusive) {
        List<Entry> entries;
        synchronized (this) {
            entries = new ArrayList<>(log.subMap(fromExclusive, false, toInclusive, true).values());
        }
        if (entries.size() != toInclusive - fromExclusive) {
            LOG.error("{}: asked to repair {} with ({}, {}] but holds only {} of those entries", self, target,
                    fromExclusive, toInclusive, entries.size());
        }
        for (int i = 0; i < entries.size(); i += REPAIR_CHUNK) {
            net.unicast(target, Wire.repair(viewId, entries.subList(i, Math.min(entries.size(), i + REPAIR_CHUNK))));
        }
    }

    private void onRepair(long viewId, List<Entry> entries) {
        List<Runnable> actions;
        synchronized (this) {
            if (frozenFor != viewId) {
                return;
            }
            for (Entry e : entries) {
                if (e.gseq() > last) {
                    repairs.put(e.gseq(), e);
                }
            }
            for (Entry e = repairs.remove(last + 1); e != null; e = repairs.remove(last + 1)) {
                deliverLocked(e);
            }
            actions = tryActivateLocked();
        }
        Recovery.runAll(actions);
    }

    /**
     * The new epoch opens at {@code start} once this member holds everything up to {@code catchUp}; after a
     * merge, a member of a side that ordered less skips to {@code start - 1} (the numbers between were the
     * other side's: never delivered here, and the application learns of the merge from the view).
     */
    void onEpoch(MemberId src, long viewId, long newEpoch, long start, long catchUp) {
        List<Runnable> actions;
        synchronized (this) {
            if (frozenFor != viewId || view == null || !src.equals(view.coordinator())) {
                return;
            }
            LOG.debug("{}: EPOCH {} of view {} opens at {} (catch up to {}; delivered up to {})", self, newEpoch,
                    viewId, start, catchUp, last);
            pendingEpoch = newEpoch;
            pendingStart = start;
            pendingCatchUp = catchUp;
            if (fresh) {
                fresh = false;
                last = start - 1;
            }
            actions = tryActivateLocked();
        }
        Recovery.runAll(actions);
    }

    /** Opens the pending epoch once this member holds everything before it; returns what to do after. */
    private List<Runnable> tryActivateLocked() {
        if (pendingEpoch >= 0 && last == pendingCatchUp && last < pendingStart - 1) {
            LOG.info("{}: skips to {} after a merge (the other side ordered {} .. {})", self, pendingStart - 1,
                    last + 1, pendingStart - 1);
            last = pendingStart - 1;
        }
        if (pendingEpoch < 0 || last != pendingStart - 1) {
            if (pendingEpoch >= 0 && last > pendingStart - 1) {
                LOG.error("{}: delivered up to {} but epoch {} starts at {}", self, last, pendingEpoch, pendingStart);
            }
            return List.of();
        }
        long opened = pendingEpoch;
        LOG.debug("{}: epoch {} open at {}", self, opened, last + 1);
        epoch = opened;
        frozenFor = -1;
        pendingEpoch = -1;
        repairs.clear();
        List<Entry> mine = new ArrayList<>();
        for (EarlyOrd o : early) {
            if (o.epoch() == opened) {
                mine.add(o.entry());
            }
        }
        early.clear();
        mine.sort(Comparator.comparingLong(Entry::gseq));
        for (Entry e : mine) {
            if (e.gseq() == last + 1) {
                deliverLocked(e);
            }
        }
        resendPending = true;   // whoever takes originLock next resends everything unacked, in order
        mayForward = true;
        MemberId seqMember = view.coordinator();
        lastAcked = last;
        long confirmed = last;
        List<Runnable> actions = new ArrayList<>();
        if (seqMember.equals(self)) {
            actions.add(() -> sequencer.openEpoch(opened));
        }
        actions.add(() -> sendAck(seqMember, confirmed));   // tells the sequencer this member caught up
        actions.add(this::resendUnacked);
        return actions;
    }

    // ================================ views ================================

    void viewChanged(View v) {
        boolean startRecovery;
        synchronized (originLock) {
            MemberId oldCoord = coord;   // the previous view's coordinator
            if (!v.coordinator().equals(coord)) {
                // Forwards sent to the old sequencer may be lost with it: the next forward to the new one
                // resends every unacked broadcast first, so that none is overtaken (and then dropped as old).
                resendPending = true;
            }
            coord = v.coordinator();
            // The sequencer follows the view before this member casts anything more or the application hears
            // of it: a broadcast ordered in the old epoch from here on would be ordered for nobody.
            startRecovery = sequencer.viewChanged(v, oldCoord);
        }
        long[] stashedReply = null;
        MemberId stashedFrom = null;
        synchronized (this) {
            view = v;
            pump.view(v);
            if (stashedStateReq != null && stashedStateReq[0] == v.id() && v.coordinator().equals(stashedStateReqFrom)) {
                stashedReply = freezeLocked(v.id());
                stashedFrom = stashedStateReqFrom;
            }
            if (stashedStateReq != null && stashedStateReq[0] <= v.id()) {
                stashedStateReq = null;
            }
        }
        if (stashedReply != null) {
            sendState(stashedFrom, v.id(), stashedReply);
        }
        replayPreView();
        if (startRecovery) {
            LOG.debug("{}: sequencer for view {}: recovering", self, v);
            for (MemberId m : v.members()) {
                if (m.equals(self)) {
                    onStateReq(self, v.id());
                } else {
                    net.control(m, Wire.longs(Wire.STATE_REQ, v.id()));
                }
            }
        }
    }

    /** Drains what arrived before the first view, until nothing more queues behind it. */
    private void replayPreView() {
        while (true) {
            List<Object[]> batch;
            synchronized (this) {
                if (preView == null) {
                    return;
                }
                if (preView.isEmpty()) {
                    preView = null;
                    return;
                }
                batch = preView;
                preView = new ArrayList<>();
            }
            for (Object[] m : batch) {
                dispatch((MemberId) m[0], (byte[]) m[1]);
            }
        }
    }

    /** What this member delivered per origin (highest oseq), for a sequencer opening its epoch. */
    synchronized Map<MemberId, Long> deliveredOseq() {
        return new HashMap<>(deliveredOseq);
    }

    /** Broadcasts of this member not yet delivered back (for tests and stats). */
    int unackedCount() {
        return unacked.size();
    }

    /** Entries kept for repairs (for tests and stats). */
    synchronized int logSize() {
        return log.size();
    }
}
