package org.fts.order;

import java.util.ArrayList;
import java.util.List;

import org.fts.gc.ReadBarrier;
import org.fts.gc.internal.DeliveryPump;
import org.fts.gc.internal.EpochId;

/**
 * The member side of read barriers (docs/reads.md): asks the sequencer of the epoch it follows for a read index
 * ({@link ReadWire.Index}), at most one request in flight, so every barrier asked for meanwhile shares the next one;
 * with the answer, hands the barriers to its {@link Member}, which makes them ready once it delivered up to the
 * confirmed position. A barrier it cannot confirm (no open epoch, a view change, no answer within {@link
 * #TIMEOUT_NANOS}, or the sequencer refused) is refused, and the application orders its read.
 *
 * <p>Its monitor is taken alone or before the member's (it reads the member's epoch under it); it sends after.
 */
final class ReadRequester {
    /** How long a request for a read index, or a confirmed barrier's wait for its position, may take. */
    static final long TIMEOUT_NANOS = 1_000_000_000L;

    /** Where a request goes: to the epoch's sequencer, a direct call when this member sequences it. */
    interface Net {
        void index(EpochId epoch, ReadWire.Index request);
    }

    private final Member member;
    private final DeliveryPump pump;
    private final Net net;
    private final boolean uniform;
    private final List<ReadBarrier> waiting = new ArrayList<>();
    private List<ReadBarrier> inFlight = List.of();
    private long inFlightId;
    private EpochId inFlightEpoch;
    private long sentAt;
    private long nextId;
    private final java.util.concurrent.atomic.LongAdder confirmed = new java.util.concurrent.atomic.LongAdder();
    private final java.util.concurrent.atomic.LongAdder refused = new java.util.concurrent.atomic.LongAdder();
    private final java.util.concurrent.atomic.LongAdder requests = new java.util.concurrent.atomic.LongAdder();

    ReadRequester(Member member, DeliveryPump pump, Net net, boolean uniform) {
        this.member = member;
        this.pump = pump;
        this.net = net;
        this.uniform = uniform;
    }

    /** Asks for a barrier; {@code now} in nanoseconds. */
    void request(ReadBarrier barrier, long now) {
        if (!uniform) {
            refuse(List.of(barrier), "fts.delivery=agreed: reads are ordered");
            return;
        }
        if (member.epoch() == null) {
            refuse(List.of(barrier), "it follows no open epoch");
            return;
        }
        ReadWire.Index send;
        EpochId to;
        synchronized (this) {
            waiting.add(barrier);
            send = next(now);
            to = inFlightEpoch;
        }
        if (send != null) {
            net.index(to, send);
        }
    }

    /** The sequencer's answer: the batch in flight waits for its position, or is refused. */
    void answered(org.fts.gc.MemberId src, ReadWire.Answer a, long now) {
        List<ReadBarrier> batch;
        ReadWire.Index send;
        EpochId to;
        synchronized (this) {
            if (inFlight.isEmpty() || a.id() != inFlightId || a.epochView() != inFlightEpoch.view()
                    || !src.equals(inFlightEpoch.sequencer())) {
                return;   // a late answer to a request already given up
            }
            batch = inFlight;
            inFlight = List.of();
            send = next(now);
            to = inFlightEpoch;
        }
        if (a.position() < 0) {
            refuse(batch, "its sequencer could not confirm that it still leads the group");
        } else {
            confirmed.add(batch.size());
            if (member.readsAt(a.position(), batch, now + TIMEOUT_NANOS)) {
                // delivered already: ready on this thread if the pump has handed over every delivery (no hand-off
                // to the delivery thread and back), else right behind them
                pump.taskNowIfIdle(() -> batch.forEach(ReadBarrier::ready));
            }
        }
        if (send != null) {
            net.index(to, send);
        }
    }

    /** A view changed here: nothing waiting is confirmed any more; the application orders those reads. */
    void viewChanged() {
        List<ReadBarrier> all;
        synchronized (this) {
            all = new ArrayList<>(inFlight);
            all.addAll(waiting);
            inFlight = List.of();
            waiting.clear();
        }
        all.addAll(member.expireReads(Long.MAX_VALUE));
        refuse(all, "a view changed while it was confirmed");
    }

    /** The timer: a request unanswered, or a position not delivered, within {@link #TIMEOUT_NANOS} is refused. */
    void tick(long now) {
        List<ReadBarrier> late = new ArrayList<>();
        ReadWire.Index send;
        EpochId to;
        synchronized (this) {
            if (!inFlight.isEmpty() && now - sentAt > TIMEOUT_NANOS) {
                late.addAll(inFlight);
                inFlight = List.of();
            }
            send = next(now);
            to = inFlightEpoch;
            if (send == null && inFlight.isEmpty()) {   // barriers waiting, and no open epoch to ask in
                late.addAll(waiting);
                waiting.clear();
            }
        }
        late.addAll(member.expireReads(now));
        refuse(late, "it could not confirm within " + TIMEOUT_NANOS / 1_000_000 + " ms");
        if (send != null) {
            net.index(to, send);
        }
    }

    /** Barriers confirmed and refused so far, and requests sent. */
    long[] counts() {
        return new long[] {confirmed.sum(), refused.sum(), requests.sum()};
    }

    /**
     * Under the monitor: the next request, if none is in flight and barriers wait, in the epoch this member follows
     * now. Its epoch is read here, after every barrier of the batch was added, and counts as a confirmation at the
     * sequencer: that the member followed the epoch after each of the batch's reads began ({@link ReadConfirmer}).
     * Lock order: this monitor, then the member's.
     */
    private ReadWire.Index next(long now) {
        if (!inFlight.isEmpty() || waiting.isEmpty()) {
            return null;
        }
        EpochId e = member.epoch();
        if (e == null) {
            return null;
        }
        inFlight = new ArrayList<>(waiting);
        waiting.clear();
        inFlightId = ++nextId;
        requests.increment();
        inFlightEpoch = e;
        sentAt = now;
        return new ReadWire.Index(e.view(), inFlightId);
    }

    private void refuse(List<ReadBarrier> barriers, String why) {
        if (!barriers.isEmpty()) {
            refused.add(barriers.size());
            pump.task(() -> barriers.forEach(b -> b.refused(why)));
        }
    }
}
