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

    Following(Member m) {
        this.m = m;
    }

    /**
     * An ORD from {@code src}. Returns whether it advanced what this member holds (an ACK is due). What it commits is
     * delivered by {@link #deliverAfterAck}, after the caller sent that ACK: the delivery thread it wakes would
     * otherwise compete with the acknowledgement that the sequencer's client waits for.
     */
    boolean onOrd(MemberId src, Wire.Ord o) {
        EpochId e = new EpochId(o.epochView(), src);
        if (m.phase instanceof Phase.Open open && open.epoch().equals(e)) {
            long before = m.held;
            accept(o.e());
            m.commitKnown = Math.max(m.commitKnown, o.committed());
            m.deliverAfterAck = e;
            trim(o.stable());
            return m.held > before;
        }
        if ((m.phase instanceof Phase.Catching c && c.epoch().equals(e))
                || (m.phase instanceof Phase.Frozen f && f.view() == o.epochView() && src.equals(f.coordinator()))) {
            m.early.put(o.e().gseq(), o.e());   // the epoch this member is about to open
            m.earlyCommitted = Math.max(m.earlyCommitted, o.committed());
            return false;
        }
        LOG.debug("{}: dropped ORD {} of epoch {} in phase {}", m.self, o.e().gseq(), e, m.phase);
        return false;
    }

    /** What ORDs of the open epoch {@code deliverAfterAck} committed, once their ACK is sent (after a batch). */
    void deliverAfterAck() {
        EpochId e = m.deliverAfterAck;
        m.deliverAfterAck = null;
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
            long before = m.held;
            accept(d.e());
            deliverCommitted();
            return m.held > before;
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
        if (!(m.phase instanceof Phase.Open open) || !open.epoch().equals(e) || entry.gseq() != m.held + 1) {
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
            m.sequencerHolds = Math.max(m.sequencerHolds, seqHolds);
            if (upTo > m.commitKnown || m.durablePair) {
                m.commitKnown = Math.max(m.commitKnown, upTo);
                deliverCommitted();
            }
            trim(stable);
        } else if ((m.phase instanceof Phase.Catching c && c.epoch().equals(e)) || (m.phase instanceof Phase.Frozen f
                && f.view() == e.view() && e.sequencer().equals(f.coordinator()))) {
            m.earlyCommitted = Math.max(m.earlyCommitted, upTo);   // the epoch this member is about to open
        }
    }

    /**
     * The writer synced more: with {@link Member#durablePair}, what it holds of the sequencer's synced part is
     * committed.
     */
    void durableAdvanced() {
        if (m.durablePair && m.phase instanceof Phase.Open) {
            deliverCommitted();
        }
    }

    /**
     * The ACK this member owes its sequencer for the epoch it follows, or null ({@link AckSchedule}); {@code always}:
     * asked by the timer.
     */
    AckSchedule.Due ackDue(boolean always) {
        return m.phase instanceof Phase.Open open
                ? m.acks.due(open.epoch().view(), m.ackable(), m.commitKnown, always) : null;
    }

    void accept(Entry entry) {
        if (entry.gseq() <= m.held) {
            return;   // a duplicate
        }
        if (entry.gseq() != m.held + 1) {
            if (!m.offload) {   // cannot happen over FIFO channels from one sequencer; held back, not out of order
                LOG.error("{}: ORD {} after {}: FIFO from the sequencer was broken", m.self, entry.gseq(), m.held);
            }
            m.ahead.put(entry.gseq(), entry);
            return;
        }
        m.hold(entry);
        m.holdAhead();
    }

    void trim(long stable) {
        long upTo = Math.min(stable, m.delivered);
        if (upTo > 0 && !m.log.isEmpty() && m.log.firstKey() <= upTo) {
            m.log.headMap(upTo, true).clear();
        }
    }

    void deliverCommitted() {
        long quiet = QUIET_PER_DELAY * m.config.replayDelayNanos();
        if (m.durablePair && m.phase instanceof Phase.Open) {
            m.commitKnown = Math.max(m.commitKnown, Math.min(m.ackable(), m.sequencerHolds));
        }
        long limit = !(m.phase instanceof Phase.Open) || (m.shortcut && m.commitKnown >= m.tailEnd) ? m.held
                : Math.min(m.held, m.commitKnown);
        while (m.delivered < limit) {
            Entry e = m.log.get(m.delivered + 1);
            if (e == null) {
                LOG.error("{}: entry {} missing from the log (held {}, delivered {})", m.self, m.delivered + 1, m.held,
                        m.delivered);
                return;
            }
            m.delivered = e.gseq();
            m.deliveredHere = m.delivered;
            m.applied = true;
            if (e.origin().equals(m.self)) {
                m.origin.delivered(e.oseq());
            }
            m.observer.delivered(e.gseq(), e.origin(), e.payload());
            if (e.gseq() <= m.replayTo) {
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
            m.reads.release(m.delivered, m.pump);
        }
        if (m.gapOwn != null && m.phase instanceof Phase.Open && m.commitKnown >= m.gapOwn.tailEnd()) {
            m.origin.delivered(m.gapOwn.oseq());   // its broadcasts the skipped, now committed, history holds
            m.gapOwn = null;
        }
        m.offerCheckpoint();
    }
}
