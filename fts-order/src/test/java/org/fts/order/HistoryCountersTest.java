package org.fts.order;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * {@link HistoryCounters#skipTo}: what a member knew committed, or delivered, beyond a gap's start was of another
 * history, and must not count in the new one (simulator seed 447, docs/simulator.md "Learners": a stale commit point
 * delivered a new epoch's entries before they committed, breaking agreement).
 */
class HistoryCountersTest {
    @Test
    void aGapForgetsWhatWasCommittedOrDeliveredBeyondItsStart() {
        HistoryCounters h = new HistoryCounters();
        for (long g = 1; g <= 23; g++) {
            h.hold(g);
            h.deliver(g);
        }
        h.knowCommitted(23);
        h.skipTo(21);   // a later epoch continues another history, which ends at 20
        assertEquals(20, h.held());
        assertEquals(20, h.commitKnown(), "commit knowledge of the other history's 21..23");
        assertEquals(20, h.deliveredHere(), "what it delivered of the other history's 21..23");
        h.hold(21);
        h.knowCommitted(21);   // the new epoch's own commit point
        assertEquals(21, h.commitKnown());
    }

    @Test
    void aGapPastWhatItKnewKeepsIt() {
        HistoryCounters h = new HistoryCounters();
        h.hold(1);
        h.deliver(1);
        h.knowCommitted(1);
        h.skipTo(10);
        assertEquals(1, h.commitKnown(), "below the gap's start: still true");
        assertEquals(1, h.deliveredHere());
    }
}
