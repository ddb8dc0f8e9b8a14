package org.fts.order;

import static org.fts.order.SteppedGroup.from;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;

import org.fts.gc.GroupConfig;
import org.fts.testing.Recorder.Delivery;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link TotalOrder}'s recovery after crashes, deterministically ({@link SteppedGroup}): the failures that broke
 * JGroups' SEQUENCER injected exactly (a member missing the tail of the sequencer's broadcasts, the sequencer
 * dying with forwards it never ordered, the repairing member dying), under uniform delivery.
 */
class TotalOrderRecoveryTest {
    private SteppedGroup g;

    @AfterEach
    void stop() {
        if (g != null) {
            g.close();
        }
    }

    private SteppedGroup start(int groupSize, String... names) {
        g = new SteppedGroup(new GroupConfig(groupSize, true)).add(names);
        g.view(names);
        return g;
    }

    /** The shipped observer counts what OrderStats reports: epochs opened, with a gap (a fetched state) or not. */
    @Test
    void theStatsCountTheEpochsAMemberOpenedAndThoseWithAGap() {
        start(3, "a", "b", "c");
        g.send("b", 4);
        OrderStats b = g.node("b").order.stats(Ordering.SEQUENCER);
        assertEquals(1, b.getEpochsOpened(), "the founding");
        assertEquals(0, b.getEpochsOpenedWithAGap());
        g.crash("a");
        g.view("b", "c");
        g.send("c", 2);
        assertEquals(2, b.getEpochsOpened());
        g.add("d");
        g.view("b", "c", "d");
        g.send("c", 1);
        OrderStats d = g.node("d").order.stats(Ordering.SEQUENCER);
        assertEquals(1, d.getEpochsOpened());
        assertEquals(1, d.getEpochsOpenedWithAGap(), "a new member without a log fetches the group's state");
        assertEquals(0, b.getEpochsOpenedWithAGap());
        assertEquals(0, d.getFoundingsAgain());
    }

    @Test
    void aMemberThatMissedTheDeadSequencersTailIsRepairedBySurvivors() {
        start(3, "a", "b", "c");
        g.send("b", 10);
        // c misses every ORD the sequencer sends from now on; b has them all.
        g.drop = (from, to) -> from.name().equals("a") && to.name().equals("c");
        g.send("b", 5);
        g.send("a", 3);
        assertEquals(18, g.node("b").delivered(18).size(), "b got everything before the crash");
        assertEquals(10, g.node("c").delivered(10).size(), "c missed the sequencer's tail");
        g.crash("a");
        g.heal();
        g.view("b", "c");
        List<Delivery> b = g.node("b").delivered(18);
        List<Delivery> c = g.node("c").delivered(18);
        assertEquals(b, c, "the survivors' sequences");
        assertEquals(15, from(c, "b"), "every broadcast of the surviving sender b, exactly once");
        assertEquals(3, from(c, "a"), "the dead sequencer's own broadcasts that a survivor had reach all survivors");
        assertFalse(g.node("c").epoch(2).gap(), "c was repaired, not skipped");
        g.send("c", 4);
        assertEquals(g.node("b").delivered(22), g.node("c").delivered(22), "order continues identically");
    }

    @Test
    void forwardsTheDeadSequencerNeverOrderedAreOrderedOnceByTheNext() {
        start(3, "a", "b", "c");
        g.send("b", 5);
        g.sendNoRun("b", 7);   // the sequencer dies with these unread in its inbox
        g.sendNoRun("c", 2);
        g.crash("a");
        g.view("b", "c");
        List<Delivery> b = g.node("b").delivered(14);
        assertEquals(b, g.node("c").delivered(14));
        assertEquals(12, from(b, "b"));
        assertEquals(2, from(b, "c"));
        assertEquals(14, new HashSet<>(b).size(), "no duplicates");
        assertEquals(0, g.node("b").order.unackedCount());
    }

    @Test
    void aForwardToTheNewSequencerNeverOvertakesOlderOnesLostWithTheOldOne() {
        start(3, "a", "b", "c");
        g.send("c", 3);
        g.sendNoRun("c", 5);   // forwarded to a, which dies before reading them
        g.crash("a");
        g.sendNoRun("c", 1);   // still following a's epoch: lost with it too, resent in the next
        g.view("b", "c");
        List<Delivery> b = g.node("b").delivered(9);
        assertEquals(b, g.node("c").delivered(9));
        assertEquals(9, from(b, "c"), "all of c's broadcasts, none lost behind the newer one");
        for (int i = 0; i < 9; i++) {
            assertEquals("c:" + i, b.get(i).text(), "in c's order");
        }
    }

    @Test
    void aSequencerThatJoinedLateOrdersOriginsWhoseHistoryItNeverSaw() {
        start(0, "a", "b");
        g.send("b", 4);
        g.add("c");
        g.view("a", "b", "c");
        assertTrue(g.node("c").epoch(1).gap(), "a joiner's state must be fetched");
        g.crash("a");
        g.crash("b");
        g.view("c");   // c, the late joiner, is alone and sequences for itself (no quorum configured)
        g.send("c", 2);
        assertEquals(List.of("c:0", "c:1"), g.node("c").delivered(2).stream().map(Delivery::text).toList());
    }

    @Test
    void aRecoveryInterruptedByTheRepairersDeathStillEndsInOneSequence() {
        start(0, "a", "b", "c", "d");   // 4 members: a majority is 3, so members wait for the commit point
        g.send("b", 3);
        // b and c miss the sequencer's tail; only d gets it: held by a and d, a minority, so delivered by none.
        g.drop = (from, to) -> from.name().equals("a") && !to.name().equals("d") && !to.name().equals("a");
        g.send("b", 4);
        assertEquals(3, g.node("d").delivered(3).size(), "uniform: d holds b's last 4 but may not deliver them");
        g.crash("a");
        g.drop = (from, to) -> from.name().equals("d");   // d's repairs never arrive...
        g.view("b", "c", "d");
        g.crash("d");                                      // ...and d dies during the recovery
        g.heal();
        g.view("b", "c");
        g.send("c", 2);
        List<Delivery> b = g.node("b").delivered(9);
        List<Delivery> c = g.node("c").delivered(9);
        assertEquals(b, c, "the last two survivors agree");
        assertEquals(7, from(b, "b"), "b's broadcasts that nobody alive had delivered were resent and ordered once");
        assertEquals(2, from(b, "c"));
    }

    @Test
    void aJoinerDeliversOnlyTheEpochsItBelongsTo() {
        start(0, "a", "b");
        g.send("b", 3);
        g.add("c");       // reachable, but not in a view yet: a's ORDs to it are dropped
        g.send("b", 5);
        assertEquals(0, g.node("c").recorder.deliveredCount());
        g.view("a", "b", "c");
        g.send("a", 2);
        List<Delivery> all = g.node("b").delivered(10);
        List<Delivery> joiner = g.node("c").delivered(2);
        assertEquals(all.subList(8, 10), joiner, "the joiner delivers from its first epoch on");
        assertTrue(g.node("c").epoch(1).gap(), "and is told that its state misses what came before");
        assertEquals(g.node("a").id, g.node("c").epoch(1).provider(), "naming a member holding a synced state");
    }

    @Test
    void stabilityTrimsTheRepairLog() {
        start(3, "a", "b", "c");
        for (int i = 0; i < 5; i++) {
            g.send("b", 400);
        }
        g.node("c").delivered(2_000);
        g.send("b", 1);   // carries the stability point reached by the acks above
        for (SteppedGroup.Node n : g.alive()) {
            assertTrue(n.order.logSize() < 100, n.id + " keeps only unstable entries: " + n.order.logSize());
        }
    }

    @Test
    void theSequencerDeliversItsOwnBroadcastOnlyOnceAnotherReplicaHoldsIt() {
        start(3, "a", "b", "c");
        g.drop = (from, to) -> from.name().equals("a");   // nobody receives the sequencer's ORDs
        g.send("a", 3);
        g.send("b", 2);
        assertEquals(0, g.node("a").recorder.deliveredCount(), "held by the sequencer alone: not delivered");
        g.heal();
        g.crash("a");
        g.view("b", "c");
        List<Delivery> b = g.node("b").delivered(2);
        assertEquals(List.of("b:0", "b:1"), b.stream().map(Delivery::text).toList(),
                "a's unacknowledged broadcasts died with it; b's were resent");
    }
}
