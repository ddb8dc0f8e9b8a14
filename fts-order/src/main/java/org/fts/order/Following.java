package org.fts.order;

import org.fts.gc.MemberId;
import org.fts.gc.internal.EpochId;
import org.fts.order.Wire.Entry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link Member} role of the open epoch: it holds the entries its sequencer orders (or, offload, their origins
 * multicast), delivers them once committed, and owes its sequencer acknowledgements; the entries of the epoch it is
 * about to open wait in {@code early}. Called under the member's monitor.
 */
final class Following {
    private static final Logger LOG = LoggerFactory.getLogger(Following.class);
    /**
     * Replays that wait ({@code fts.delivery.replay_delay}): another member's broadcast may wait only at a member that
     * cast none of its own for this many replay delays and has none on the way. A member whose clients are busy
     * executes what it delivers at once, so that its own requests never queue behind waiting replays.
     */
    static final int QUIET_PER_DELAY = 10;

    private final Member m;
    /** The open epoch whose ORDs this member held in the current batch and has not delivered yet, or null. */
    private EpochId deliverAfterAck;
    /** With {@link Phase.Open#durablePair}: what the sequencer's disk holds, told by its COMMITs. */
    private long sequencerHolds;
    /** What the COMMITs of the epoch this member is about to open said is committed (its ORDs wait in early). */
    private long earlyCommitted;
    /**
     * After a gap: this member's own broadcasts up to {@code oseq} are in the history the epoch continues, up to
     * {@code tailEnd}. The origin is told so only once that tail is committed: until then a later recovery may still
     * drop it, and the origin must keep them to send again.
     */
    private record GapOwn(long oseq, long tailEnd) {
    }

    /** Null: nothing pending. */
    private GapOwn gapOwn;

    Following(Member m) {
        this.m = m;
    }

    /** It froze for a recovery: the next epoch says again what its history holds. */
    void frozen() {
        earlyCommitted = 0;
        gapOwn = null;
    }

    /**
     * It opened an epoch: what the sequencer said before is not kept (its repeated ACK, the timer's, brings the
     * sequencer's COMMIT again, with what its disk holds: Acks.update, the repeat).
     */
    void opened() {
        sequencerHolds = 0;
    }

    /** Once the ORDs that overtook the opening are held: what their COMMITs said is committed is delivered. */
    void earlyCommitted() {
        m.history.knowCommitted(earlyCommitted);
        deliverCommitted();
    }

    /**
     * Opened with a gap: its own broadcasts up to {@code oseq} are in the history the epoch continues, up to {@code
     * tailEnd}; the origin is told once that is committed ({@link #deliverCommitted}), or at once if it already is.
     */
    void gapOwn(long oseq, long tailEnd) {
        gapOwn = new GapOwn(oseq, tailEnd);
        deliverCommitted();
    }

    /**
     * An ORD from {@code src}. Returns whether it advanced what this member holds (an ACK is due). What it commits is
     * delivered by {@link #deliverAfterAck}, after the caller sent that ACK: the delivery thread it wakes would
     * otherwise compete with the acknowledgement that the sequencer's client waits for.
     */
    boolean onOrd(MemberId src, Wire.Ord o) {
        EpochId e = new EpochId(o.epochView(), src);
        if (m.phase instanceof Phase.Open open && open.epoch().equals(e)) {
            long before = m.history.held();
            accept(o.e());
            m.history.knowCommitted(o.committed());
            deliverAfterAck = e;
            trim(o.stable());
            return m.history.held() > before;
        }
        if ((m.phase instanceof Phase.Catching c && c.epoch().equals(e))
                || (m.phase instanceof Phase.Frozen f && f.view() == o.epochView() && src.equals(f.coordinator()))) {
            m.early.put(o.e().gseq(), o.e());   // the epoch this member is about to open
            earlyCommitted = Math.max(earlyCommitted, o.committed());
            return false;
        }
        LOG.debug("{}: dropped ORD {} of epoch {} in phase {}", m.self, o.e().gseq(), e, m.phase);
        return false;
    }

    /** What ORDs of the open epoch {@code deliverAfterAck} committed, once their ACK is sent (after a batch). */
    void deliverAfterAck() {
        EpochId e = deliverAfterAck;
        deliverAfterAck = null;
        if (e != null && m.phase instanceof Phase.Open open && open.epoch().equals(e)) {
            deliverCommitted();
        }
    }

    /**
     * Offload: an entry multicast by its origin (or this member's own). Held in position order: one past a hole waits
     * in {@code ahead}, dropped if this member freezes first. Returns whether {@code held} advanced (an ACK is due).
     */
    boolean onData(Wire.Data d) {
        EpochId e = new EpochId(d.epochView(), d.sequencer());
        if (m.phase instanceof Phase.Open open && open.epoch().equals(e)) {
            long before = m.history.held();
            accept(d.e());
            deliverCommitted();
            return m.history.held() > before;
        }
        if ((m.phase instanceof Phase.Catching c && c.epoch().equals(e)) || (m.phase instanceof Phase.Frozen f
                && f.view() == d.epochView() && d.sequencer().equals(f.coordinator()))) {
            m.early.put(d.e().gseq(), d.e());   // the epoch this member is about to open
            return false;
        }
        LOG.debug("{}: dropped DATA {} of epoch {} in phase {}", m.self, d.e().gseq(), e, m.phase);
        return false;
    }

    /** The sequencer's own entry, held here before it is multicast; false if this member left that epoch. */
    boolean holdLocal(EpochId e, Entry entry) {
        if (!(m.phase instanceof Phase.Open open) || !open.epoch().equals(e) || entry.gseq() != m.history.held() + 1) {
            return false;
        }
        m.hold(entry);
        deliverCommitted();
        return true;
    }

    /**
     * Everything up to {@code upTo} of epoch {@code e} is held by a majority; everything up to {@code stable}
     * by every member (this member's log keeps only what may still be needed for a repair).
     */
    void commit(EpochId e, long upTo, long stable, long seqHolds) {
        if (m.phase instanceof Phase.Open open && open.epoch().equals(e)) {
            sequencerHolds = Math.max(sequencerHolds, seqHolds);
            if (upTo > m.history.commitKnown() || open.durablePair()) {
                m.history.knowCommitted(upTo);
                deliverCommitted();
            }
            trim(stable);
        } else if ((m.phase instanceof Phase.Catching c && c.epoch().equals(e)) || (m.phase instanceof Phase.Frozen f
                && f.view() == e.view() && e.sequencer().equals(f.coordinator()))) {
            earlyCommitted = Math.max(earlyCommitted, upTo);   // the epoch this member is about to open
        }
    }

    /**
     * The writer synced more: with {@link Phase.Open#durablePair}, what it holds of the sequencer's synced part is
     * committed.
     */
    void durableAdvanced() {
        if (m.phase instanceof Phase.Open open && open.durablePair()) {
            deliverCommitted();
        }
    }

    /**
     * The ACK this member owes its sequencer for the epoch it follows, or null ({@link AckSchedule}); {@code always}:
     * asked by the timer.
     */
    AckSchedule.Due ackDue(boolean always) {
        return m.phase instanceof Phase.Open open
                ? m.acks.due(open.epoch().view(), m.ackable(), m.history.commitKnown(), always) : null;
    }

    void accept(Entry entry) {
        if (entry.gseq() <= m.history.held()) {
            return;   // a duplicate
        }
        if (entry.gseq() != m.history.held() + 1) {
            if (!m.offload) {   // cannot happen over FIFO channels from one sequencer; held back, not out of order
                LOG.error("{}: ORD {} after {}: FIFO from the sequencer was broken", m.self, entry.gseq(),
                        m.history.held());
            }
            m.ahead.put(entry.gseq(), entry);
            return;
        }
        m.hold(entry);
        m.holdAhead();
    }

    void trim(long stable) {
        long upTo = Math.min(stable, m.history.delivered());
        if (upTo > 0 && !m.log.isEmpty() && m.log.firstKey() <= upTo) {
            m.log.headMap(upTo, true).clear();
        }
    }

    void deliverCommitted() {
        long quiet = QUIET_PER_DELAY * m.config.replayDelayNanos();
        HistoryCounters h = m.history;
        Phase.Open open = m.phase instanceof Phase.Open o ? o : null;
        if (open != null && open.durablePair()) {
            h.knowCommitted(Math.min(m.ackable(), sequencerHolds));
        }
        long limit = open == null || (open.shortcut() && h.commitKnown() >= open.tailEnd()) ? h.held()
                : Math.min(h.held(), h.commitKnown());
        while (h.delivered() < limit) {
            Entry e = m.log.get(h.delivered() + 1);
            if (e == null) {
                LOG.error("{}: entry {} missing from the log ({})", m.self, h.delivered() + 1, h);
                return;
            }
            h.deliver(e.gseq());
            if (e.origin().equals(m.self)) {
                m.origin.delivered(e.oseq());
            }
            m.observer.delivered(e.gseq(), e.origin(), e.payload());
            if (e.gseq() <= h.replayTo()) {
                m.pump.replay(e.origin(), e.payload().clone());
            } else {
                // Another member's, at a member whose own clients are quiet: no reply here waits on it.
                boolean deferrable = !e.origin().equals(m.self) && m.origin.quietFor(quiet);
                m.pump.broadcast(e.origin(), e.payload().clone(), deferrable);   // the log keeps the original
            }
            if (m.checkpoints != null) {
                m.checkpoints.delivered(e);
            }
        }
        if (!m.reads.isEmpty()) {
            m.reads.release(h.delivered(), m.pump);
        }
        if (gapOwn != null && open != null && h.commitKnown() >= gapOwn.tailEnd()) {
            m.origin.delivered(gapOwn.oseq());   // its broadcasts the skipped, now committed, history holds
            gapOwn = null;
        }
        m.offerCheckpoint();
    }
}
