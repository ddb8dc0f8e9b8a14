package org.fts.order;

import static org.fts.order.SteppedGroup.from;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.fts.gc.GroupConfig;
import org.fts.gc.MemberId;
import org.fts.testing.Recorder.Delivery;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Leader offload ({@link Ordering#OFFLOAD}) under the faults its grants add, stepped deterministically
 * ({@link SteppedGroup}): holes left by an origin that crashes or stalls between its grant and its multicast, a
 * multicast that reaches only some members, a sequencer that dies with grants outstanding, and stale grants and
 * entries of an epoch that ended. docs/group-communication.md, "Leader offload", names these tests.
 */
class TotalOrderOffloadTest {
    private static final long PATIENCE = 1_000_000_000L;
    private SteppedGroup g;

    @AfterEach
    void stop() {
        if (g != null) {
            g.close();
        }
    }

    private SteppedGroup start(String... names) {
        g = new SteppedGroup(new GroupConfig(3, true), Ordering.OFFLOAD).add(names);
        g.view(names);
        return g;
    }

    @Test
    void everyMemberDeliversTheSameOrderWithoutTheSequencerCarryingPayloads() {
        start("a", "b", "c");
        g.send("b", 3);
        g.send("c", 2);
        g.send("a", 2);
        List<Delivery> a = g.node("a").delivered(7);
        assertEquals(a, g.node("b").delivered(7));
        assertEquals(a, g.node("c").delivered(7));
        assertEquals(3, from(a, "b"));
        assertEquals(0, g.node("b").order.unackedCount() + g.node("c").order.unackedCount());
    }

    @Test
    void anOriginThatCrashesBetweenGrantAndMulticastLeavesAHoleTheNextEpochDrops() {
        start("a", "b", "c");
        g.send("b", 2);
        g.node("c").holdSends = true;
        g.send("c", 3);   // granted positions 3..5; c dies before multicasting them
        g.send("b", 4);   // positions 6..9, held by every member behind the hole
        assertEquals(2, g.node("a").texts().size(), "nothing after the hole is delivered");
        assertEquals(2, g.node("b").texts().size());
        g.crash("c");
        g.view("a", "b");
        List<Delivery> a = g.node("a").delivered(6);
        assertEquals(a, g.node("b").delivered(6), "the survivors' sequences");
        assertEquals(6, from(a, "b"), "b's broadcasts after the hole, asked for again, each once");
        assertEquals(0, from(a, "c"));
        assertEquals(0, g.node("b").order.unackedCount());
        g.send("a", 2);
        assertEquals(g.node("a").delivered(8), g.node("b").delivered(8), "order continues identically");
    }

    @Test
    void aMulticastThatReachedTheSequencerButNotAMemberIsRepaired() {
        start("a", "b", "c");
        g.send("b", 2);
        g.drop = (from, to) -> from.name().equals("c") && to.name().equals("b");
        g.dropOnly = Set.of(Wire.Data.class);
        g.send("c", 3);
        g.send("b", 2);
        assertEquals(7, g.node("a").delivered(7).size(), "a and c hold all: a majority");
        assertEquals(2, g.node("b").texts().size(), "b lacks c's entries: it delivers nothing after them");
        g.crash("c");
        g.heal();
        g.view("a", "b");
        List<Delivery> b = g.node("b").delivered(7);
        assertEquals(g.node("a").delivered(7), b);
        assertEquals(3, from(b, "c"), "c's entries, held by a, reach b by repair");
        assertFalse(g.node("b").epoch(2).gap(), "b was repaired, not skipped");
    }

    @Test
    void aMulticastThatMissedTheSequencerIsRepairedFromTheMembersThatHoldIt() {
        start("a", "b", "c");
        g.send("b", 2);
        g.drop = (from, to) -> from.name().equals("c") && to.name().equals("a");
        g.dropOnly = Set.of(Wire.Data.class);
        g.send("c", 3);
        g.send("b", 2);
        assertEquals(7, g.node("b").delivered(7).size(), "b and c hold all: a majority, though not the sequencer");
        assertEquals(2, g.node("a").texts().size());
        g.crash("c");
        g.heal();
        g.view("a", "b");
        List<Delivery> a = g.node("a").delivered(7);
        assertEquals(g.node("b").delivered(7), a);
        assertEquals(3, from(a, "c"));
        assertEquals(7, new HashSet<>(a).size(), "no duplicates");
    }

    @Test
    void grantsOutstandingWhenTheSequencerDiesAreRefusedAndAskedForAgain() {
        start("a", "b", "c");
        g.send("b", 2);
        g.node("b").holdSends = true;
        g.node("c").holdSends = true;
        g.send("b", 3);
        g.send("c", 2);   // both granted by a; neither multicast yet
        g.crash("a");
        g.view("c", "b");   // c sequences, its own broadcasts first: the positions differ from a's grants
        g.node("b").releaseSends();   // the old grants first: stale (a's epoch), refused
        g.node("c").releaseSends();
        List<Delivery> b = g.node("b").delivered(7);
        assertEquals(b, g.node("c").delivered(7));
        assertEquals(5, from(b, "b"));
        assertEquals(2, from(b, "c"));
        assertEquals(7, new HashSet<>(b).size(), "each broadcast once: no stale grant was used");
        g.send("c", 1);
        assertEquals(8, g.node("b").delivered(8).size());
        assertEquals(8, new HashSet<>(g.node("c").delivered(8)).size());
    }

    @Test
    void anOriginThatStallsSilentlyOnAGrantIsExcludedWithinThreeQuartersOfThePatience() {
        start("a", "b", "c");
        g.send("b", 1);
        g.node("c").holdSends = true;
        g.send("c", 1);
        g.send("b", 2);
        g.partition(Set.of("c"));   // c stalls: it answers nothing either
        TotalOrder seq = g.node("a").order;
        long t = System.nanoTime();
        seq.watchStalls(t, PATIENCE);                      // the hole is noticed
        seq.watchStalls(t + PATIENCE / 4 - 1, PATIENCE);
        g.run();
        assertEquals(0, g.node("c").inbox.size() + g.node("a").excluded.size(), "nothing before a quarter patience");
        seq.watchStalls(t + PATIENCE / 4, PATIENCE);       // c is probed (the probe is cut off)
        g.run();
        seq.watchStalls(t + PATIENCE / 4 + PATIENCE / 2 - 1, PATIENCE);
        assertTrue(g.node("a").excluded.isEmpty(), "not before its probes went unanswered for half the patience");
        seq.watchStalls(t + PATIENCE / 4 + PATIENCE / 2, PATIENCE);
        assertEquals(List.of(g.node("c").id), g.node("a").excluded);
        g.view("a", "b");
        List<Delivery> a = g.node("a").delivered(3);
        assertEquals(a, g.node("b").delivered(3));
        assertEquals(3, from(a, "b"));
    }

    @Test
    void anOriginThatAnswersProbesButNeverFillsItsGrantIsExcludedAfterFourTimesThePatience() {
        start("a", "b", "c");
        g.node("c").holdSends = true;
        g.send("c", 1);
        g.send("b", 2);
        TotalOrder seq = g.node("a").order;
        long t = System.nanoTime() - 10 * PATIENCE;   // every answer comes after every tick
        for (int i = 0; i < 4; i++) {
            seq.watchStalls(t + i * PATIENCE, PATIENCE);
            g.run();   // c answers each probe
        }
        assertTrue(g.node("a").excluded.isEmpty(), "a member that answers is given four times the patience");
        seq.watchStalls(t + 4 * PATIENCE, PATIENCE);
        assertEquals(g.node("c").id, g.node("a").excluded.get(0));
    }

    @Test
    void staleGrantsAndEntriesOfAnEndedEpochAreRefused() {
        start("a", "b", "c");
        g.send("b", 1);
        g.node("c").holdSends = true;
        g.send("c", 2);   // granted positions 2..3 in epoch 1
        g.partition(Set.of("c"));
        g.viewAt(List.of("a", "b"), List.of("a", "b"));   // a and b move on; c does not know
        g.send("b", 1);
        g.node("c").releaseSends();   // c fills its old grant: its entries are cut off, and of an ended epoch
        g.heal();
        MemberId a = g.node("a").id;
        MemberId c = g.node("c").id;
        // An entry of epoch 1 reaching a member of epoch 2, and a grant of epoch 1 reaching c, late:
        g.node("a").receiveForTest("c", new Wire.Data(1, a, new Wire.Entry(2, c, 1, bytes("c:forged"))));
        g.node("b").receiveForTest("c", new Wire.Data(1, a, new Wire.Entry(3, c, 2, bytes("c:forged"))));
        g.run();
        assertEquals(2, g.node("a").texts().size(), "a's history: b:0, b:1; epoch 1's entries refused");
        g.view("a", "b", "c");
        g.node("c").receiveForTest("a", new Wire.Grant(1, 1, 2, 10));   // stale: c now follows epoch 3
        g.run();
        List<Delivery> all = g.node("a").delivered(4);
        assertEquals(all, g.node("b").delivered(4));
        assertEquals(2, from(all, "c"), "c's broadcasts, asked for again in the merged epoch, once");
        assertFalse(g.node("a").texts().contains("c:forged"));
        g.send("b", 1);
        List<Delivery> after = g.node("a").delivered(5);
        assertEquals(after, g.node("b").delivered(5));
        assertEquals(5, new HashSet<>(after).size());
        assertTrue(g.node("c").epoch(2).gap(), "c, of the ended epoch, skips to the merged one (its state fetched)");
    }

    @Test
    void aForwardFromAMemberOrderingBySequencerIsDroppedNotOrdered() {
        start("a", "b", "c");
        g.node("a").receiveForTest("b", new Wire.Fwd(1, 1, bytes("b:forwarded")));   // fts.gc.jgroups.ordering differs
        g.node("a").receiveForTest("b", new Wire.Fwd(2, 1, bytes("b:forwarded")));
        g.run();
        g.send("c", 1);
        assertEquals(List.of("c:0"), g.node("a").texts(), "the group goes on; the forwards are not ordered");
        assertEquals(List.of("c:0"), g.node("b").texts());
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
