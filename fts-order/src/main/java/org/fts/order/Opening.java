package org.fts.order;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.fts.gc.Epoch;
import org.fts.gc.GroupConfig;
import org.fts.gc.internal.EpochId;
import org.fts.order.Wire.Entry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link Member} role that opens the epoch a recovery established, once the member holds everything before its
 * start (or skips it: a gap, a founding again): it cuts back, skips or refounds its history as the epoch says, opens
 * it, holds the ORDs that overtook the opening, and acknowledges. Called under the member's monitor.
 */
final class Opening {
    private static final Logger LOG = LoggerFactory.getLogger(Opening.class);

    private final Member m;

    Opening(Member m) {
        this.m = m;
    }

    /** Opens the pending epoch once this member holds everything before it. */
    List<Runnable> open() {
        Phase.Catching c = (Phase.Catching) m.phase;
        if (m.disk == null && c.truncate() >= 0) {
            // A cut back without a log, made as it opens once every repair is here: if the recovery is interrupted
            // first, this member still holds its own epoch's history, and reports it.
            long t = c.truncate();
            if (t < c.start() - 1 && m.rebase.subMap(t, false, c.start(), false).size() < c.start() - 1 - t) {
                return List.of();   // repairs to come
            }
            m.truncate(t, c.marks());
            if (t < c.start() - 1) {
                m.rebase.subMap(t, false, c.start(), false).values().forEach(m::hold);
            }
            m.rebase.clear();
        }
        boolean gap = c.gap();
        boolean refound = c.refound();
        if (refound && m.history.applied()) {
            gap = true;   // it delivered (agreed delivery) what the group does not keep: not the initial state
            refound = false;
        }
        if (refound) {
            m.log.clear();   // held, never committed: dropped
            m.history.refoundAt(c.start());
            m.marks.clear();
            m.foundsAgain();  // as a founder: the initial state is the group's
            if (m.disk != null) {
                long held = m.history.held();
                m.disk.restartAt(held, Map.of(), true);   // the log starts again at the founding's first entry
                m.history.logged(held);
                m.damage.restartAt(held);
                m.checkpoints.refounded();
            }
        } else if (!gap && m.history.held() < c.start() - 1) {
            return List.of();   // repairs to come
        }
        if (!gap && m.history.held() > c.start() - 1) {
            LOG.error("{}: holds up to {} but epoch {} opens at {}: treated as a gap", m.self, m.history.held(),
                    c.epoch(), c.start());
            gap = true;
        }
        if (gap && m.disk == null && c.witness() >= 0) {
            if (m.rebase.subMap(c.witness(), false, c.start(), false).size() < c.start() - 1 - c.witness()) {
                return List.of();   // the tail it witnesses is still to come
            }
        }
        if (gap) {
            m.log.clear();
            if (m.disk == null && c.witness() >= 0) {
                m.log.putAll(m.rebase.subMap(c.witness(), false, c.start(), false));   // a copy, not delivered here
                m.rebase.clear();
            }
            m.history.skipTo(c.start());
            m.marks.clear();
            m.marks.putAll(c.marks());
            m.fetchesState();
            if (m.disk != null) {
                // The source's log no longer holds what it misses (compacted behind a checkpoint): its log restarts
                // here, and rebuilds its state only once the application checkpoints the state it fetches.
                long held = m.history.held();
                m.disk.restartAt(held, m.marks, false);
                m.history.logged(held);
                m.damage.restartAt(held);
                m.checkpoints.gap(held, m.marks);
            }
        } else {
            if (!m.config.uniform()) {
                m.history.knowCommitted(m.history.held());   // agreed delivery: what it holds, it delivers
                m.following.deliverCommitted();
            }
            if (m.fresh) {
                m.foundingHoldsState();   // founding: the initial state is the group's
                if (c.start() == 1) {
                    // Founding: its history is the initial state, which holds no broadcast. A recovery it did not open
                    // may have cut it back with that recovery's source's marks (Member.truncate); kept, they would
                    // tell an origin that a broadcast of an abandoned history is in this one (FIFO: simulator seed 14
                    // with logs, 1,000 steps, found while fresh members counted towards a primary, since reverted).
                    m.marks.clear();
                }
            }
        }
        // A founding (or a founding again) continues no history: its lineage is empty. A fresh member repaired from the
        // start in a continuation is not a founder (simulator seed 11605 with logs: reported as one, its epoch was
        // taken for a founding and its history's damaged entry for the group's).
        Wire.Opened opened = new Wire.Opened(c.ballot(), c.epoch(), m.fresh && !gap && c.lineage().isEmpty(),
                c.members(), c.start(), c.lineage());
        EpochId epoch = c.epoch();
        if (!m.config.uniform()) {
            m.history.agreedOpened();
        }
        long held = m.history.held();
        // The shortcut (the sequencer held an ORD before sending it) does not hold under offload: origins multicast.
        boolean pair = !m.offload && !m.self.equals(epoch.sequencer())
                && m.config.voters(List.of(m.self, epoch.sequencer())) >= m.config.majority(c.members());
        boolean shortcut = !m.config.uniform() || (m.disk == null && pair);
        boolean durablePair = m.config.uniform() && m.disk != null && pair;
        // Uniform: the continued history's tail may be held by the source alone yet; it is delivered once the new
        // sequencer says a majority opened the epoch (docs/group-communication.md, "An epoch's tail").
        m.acks.opened(held);
        m.opened(new Phase.Open(opened, held, shortcut, durablePair));   // its meta written before any ACK of it
        if (m.disk != null) {
            for (Entry e : m.history.logged() < held ? m.log.subMap(m.history.logged(), false, held, true).values()
                    : List.<Entry>of()) {
                m.disk.append(e, m.history.commitKnown());
            }
            m.history.logged(held);
        }
        m.following.opened();
        LOG.info("{}: opened epoch {} at {}{} ({} members)", m.self, epoch, c.start(),
                gap ? " with a gap (its state must be fetched)" : "", c.members().size());
        m.pump.epoch(new Epoch(epoch.view(), epoch.sequencer(), c.members(), gap, m.synced,
                m.synced ? null : c.provider()));
        m.observer.opened(epoch, c.ballot(), c.start(), gap, c.refound(), m.synced ? null : c.provider());
        Long own = m.marks.get(m.self);
        long mine = own == null ? 0 : own;
        for (Entry e : m.early.values()) {   // under offload, from several origins: perhaps with holes yet
            if (e.gseq() > m.history.held()) {
                m.ahead.put(e.gseq(), e);
            }
        }
        m.early.clear();
        m.holdAhead();
        m.following.earlyCommitted();
        long start = c.start();
        long confirmed = m.ackable();
        if (m.disk != null) {
            m.acks.opened(confirmed);   // the rest once its disk holds it
            m.disk.unpin();   // its repairs were read before its epoch came (FIFO from the coordinator)
        }
        List<Runnable> after = new ArrayList<>();
        if (gap) {
            // Those are in the history this epoch continues: the origin is told once that history is committed
            // (deliverCommitted), or at once if it already is.
            m.following.gapOwn(mine, start - 1);
        }
        if (m.self.equals(epoch.sequencer())) {
            after.add(() -> m.net.sequencerOpen(epoch, start));
        }
        after.add(() -> m.net.ack(epoch, confirmed));
        long at = m.nextStep();
        after.add(() -> m.origin.resume(at, epoch));
        return after;
    }
}
