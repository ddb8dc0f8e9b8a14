package org.fts.order;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;

import org.fts.gc.GroupConfig;
import org.fts.order.SteppedGroup.Node;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link TotalOrder} across partitions, deterministically ({@link SteppedGroup}), with the group size N = 3:
 * only a majority delivers, a member excluded while it still believes in its view commits nothing alone,
 * isolations that overlap and heal always end in one primary that holds a synced state, and restarted
 * replicas do not count until they hold the history again. Each case is one the fault-injection run of
 * issue 17 found, or its mirror image.
 */
class TotalOrderPartitionTest {
    private SteppedGroup g;

    @AfterEach
    void stop() {
        if (g != null) {
            g.close();
        }
    }

    private void start(boolean uniform, String... names) {
        g = new SteppedGroup(new GroupConfig(3, uniform)).add(names);
        for (int i = 2; i <= names.length; i++) {   // joined one by one: the first two found the group
            g.view(java.util.Arrays.copyOf(names, i));
        }
    }

    private List<String> texts(String node) {
        return g.node(node).texts();
    }

    @Test
    void aGroupIsFoundedByAMajorityAndLaterJoinersFetchTheState() {
        g = new SteppedGroup(new GroupConfig(3, true)).add("a", "b", "c");
        g.view("a");
        assertTrue(g.node("a").notPrimary(1).contains("1 of the 3 replicas"), g.node("a").notPrimary(1));
        g.view("a", "b");
        assertFalse(g.node("a").epoch(1).gap(), "the founders hold the initial state");
        assertFalse(g.node("b").epoch(1).gap());
        g.view("a", "b", "c");
        assertTrue(g.node("c").epoch(1).gap(), "a later joiner fetches the state");
        assertEquals(g.node("a").id, g.node("c").epoch(1).provider());
    }

    @Test
    void aFoundingInterruptedBeforeAMajorityOpenedItIsFoundedAgain() {
        g = new SteppedGroup(new GroupConfig(3, true)).add("a", "b", "c");
        g.view("a");
        g.drop = (from, to) -> from.name().equals("a") && to.name().equals("c");
        g.dropOnly = Set.of(Wire.EpochMsg.class);   // c reports, but never hears that the founding succeeded
        long founding = g.view("a", "c");
        assertFalse(g.node("a").epochOf(founding).gap(), "a opened the founding epoch");
        g.heal();
        long next = g.view("a", "c", "b");   // only a holds a history: alone it could never be a majority
        for (String n : List.of("a", "b", "c")) {
            assertFalse(g.node(n).epochOf(next).gap(), n + ": founded again, at the initial state");
        }
        g.send("b", 2);
        assertEquals(List.of("b:0", "b:1"), texts("c"));
    }

    @Test
    void aFoundingThatAMajorityMayHaveOpenedIsNotFoundedAgain() {
        g = new SteppedGroup(new GroupConfig(3, true)).add("r0#1", "r1#1", "r2#1");
        g.view("r0#1", "r1#1");   // founded by r0 and r1: they may have committed broadcasts together
        g.send("r1#1", 1);
        g.crash("r1#1");
        g.add("r1#2", "r2#2");
        g.view("r0#1", "r1#2", "r2#2");   // r1 restarted: it lost what it held; it cannot vouch for r1#1
        String why = g.node("r0#1").notPrimary(1);
        assertTrue(why.contains("only 1 of the 3"), why);
    }

    @Test
    void aMinorityDeliversNothingAndResumesWithAGapAfterTheHeal() {
        start(true, "a", "b", "c");
        g.send("c", 2);
        g.partition(Set.of("c"));
        g.view("a", "b");
        g.view("c");
        assertTrue(g.node("c").notPrimary(1).contains("1 of the 3"), g.node("c").notPrimary(1));
        g.send("a", 3);
        g.send("c", 4);   // held: no primary epoch at c
        assertEquals(List.of("c:0", "c:1"), texts("c"));
        assertEquals(5, g.node("b").delivered(5).size());
        g.heal();
        long merged = g.view("a", "b", "c");
        assertTrue(g.node("c").epochOf(merged).gap(), "c missed what the majority delivered");
        assertFalse(g.node("a").epochOf(merged).gap());
        List<String> b = g.node("b").delivered(9).stream().map(d -> d.text()).toList();
        assertEquals(List.of("c:0", "c:1", "a:0", "a:1", "a:2", "c:2", "c:3", "c:4", "c:5"), b,
                "c's broadcasts held while apart are ordered once after the heal");
        Node c = g.node("c");
        c.recorder.awaitDelivered(6, SteppedGroup.WAIT);
        assertEquals(List.of("c:0", "c:1", "c:2", "c:3", "c:4", "c:5"), texts("c"));
    }

    @Test
    void aSequencerExcludedWhileItStillBelievesInItsViewCommitsNothingAlone() {
        g = new SteppedGroup(new GroupConfig(3, true)).add("c", "a", "b");
        g.view("c", "a");
        g.view("c", "a", "b");   // c coordinates: the sequencer
        g.send("a", 2);
        g.partition(Set.of("c"));
        g.view("a", "b");        // a and b exclude c; c never hears of it and still believes in its view
        g.send("c", 5);          // c orders them, alone
        g.send("a", 3);
        assertEquals(List.of("a:0", "a:1"), texts("c"), "uniform: nothing c ordered alone was delivered");
        assertEquals(List.of("a:0", "a:1", "a:2", "a:3", "a:4"),
                g.node("b").delivered(5).stream().map(d -> d.text()).toList());
        g.heal();
        long merged = g.view("a", "b", "c");   // the merge: a coordinates
        assertTrue(g.node("c").epochOf(merged).gap(), "c's epoch was superseded: it fetches the state");
        List<String> a = g.node("a").delivered(10).stream().map(d -> d.text()).toList();
        assertEquals(List.of("c:0", "c:1", "c:2", "c:3", "c:4"), a.subList(5, 10),
                "c's broadcasts, never delivered, are ordered once in the merged epoch");
        assertEquals(g.node("b").delivered(10), g.node("a").delivered(10));
    }

    @Test
    void aSequencerCutOffThatOrderedForItselfRejoinsWithAGapAndItsBroadcastsAreOrderedOnce() {
        start(true, "a", "b", "c");   // a coordinates: the sequencer
        g.send("b", 2);
        g.partition(Set.of("a"));
        g.send("a", 3);               // a orders these alone: held, never committed
        g.view("a");                  // a learns it is alone
        g.view("b", "c");
        g.send("b", 2);
        g.heal();
        long merged = g.view("c", "b", "a");
        assertTrue(g.node("a").epochOf(merged).gap());
        g.send("a", 1);
        List<String> c = g.node("c").delivered(8).stream().map(d -> d.text()).toList();
        assertEquals(List.of("b:0", "b:1", "b:2", "b:3", "a:0", "a:1", "a:2", "a:3"), c);
        g.node("a").delivered(4);
        assertEquals(List.of("b:0", "b:1", "a:0", "a:1", "a:2", "a:3"), texts("a"),
                "a delivers its own broadcasts, ordered once after the merge");
        assertEquals(0, g.node("a").order.unackedCount());
    }

    @Test
    void agreedDeliveryLetsASequencerCutOffDeliverWhatTheGroupNeverKeeps() {
        g = new SteppedGroup(new GroupConfig(3, false)).add("c", "a", "b");
        g.view("c", "a");
        g.view("c", "a", "b");
        g.partition(Set.of("c"));
        g.view("a", "b");
        g.send("c", 2);   // agreed: c delivers its own, alone
        g.node("c").delivered(2);
        assertEquals(List.of("c:0", "c:1"), texts("c"));
        g.send("a", 1);
        g.heal();
        long merged = g.view("a", "b", "c");
        assertTrue(g.node("c").epochOf(merged).gap(), "the group did not keep c's branch: c must fetch the state");
        g.send("b", 1);
        List<String> a = g.node("a").delivered(2).stream().map(d -> d.text()).toList();
        assertEquals(List.of("a:0", "b:0"), a, "what c delivered alone is lost: the risk of agreed delivery");
    }

    @Test
    void overlappingIsolationsDuringARecoveryEndInOnePrimaryWithASyncedProvider() {
        start(true, "a", "b", "c");
        g.send("a", 2);
        // c cut off, the majority goes on, then the heal: c has a gap and starts fetching the state.
        g.partition(Set.of("c"));
        g.view("a", "b");
        g.view("c");
        g.send("a", 2);
        g.heal();
        long merged = g.view("a", "b", "c");
        assertTrue(g.node("c").epochOf(merged).gap());
        // Before c has the state, b is cut off: a and c go on (a holds a synced state), then a is cut off too.
        g.partition(Set.of("b"));
        long ac = g.view("a", "c");
        g.view("b");
        assertNull(g.node("a").epochOf(ac).provider());
        assertFalse(g.node("c").epochOf(ac).gap(), "c continues a's history");
        assertEquals(g.node("a").id, g.node("c").epochOf(ac).provider(), "c still needs the state: a has it");
        g.drop = (from, to) -> !from.equals(to);   // everyone alone
        g.view("a");
        g.view("c");
        g.send("a", 1);
        g.send("c", 1);
        g.heal();
        long last = g.view("b", "a", "c");   // the merge, coordinated by b, whose epoch is the oldest
        Node b = g.node("b");
        // b's epoch was superseded, but its history is the group's up to what it delivered: it keeps its state, is cut
        // back to that point and repaired, instead of fetching a state (docs/group-communication.md, "Epochs").
        assertFalse(b.epochOf(last).gap(), "b keeps its state");
        assertNull(b.epochOf(last).provider(), "b's state is current");
        Node c = g.node("c");
        assertEquals(g.node("a").id, c.epochOf(last).provider(), "a still provides");
        g.node("a").delivered(6);
        List<String> seq = texts("a");
        assertEquals(List.of("a:0", "a:1", "a:2", "a:3"), seq.subList(0, 4));
        assertEquals(Set.of("a:4", "c:0"), Set.copyOf(seq.subList(4, 6)), "held while alone, ordered once after");
        assertEquals(6, seq.size());
        c.recorder.awaitDelivered(2, SteppedGroup.WAIT);
        assertEquals(seq.subList(4, 6), texts("c").subList(texts("c").size() - 2, texts("c").size()));
        b.recorder.awaitDelivered(6, SteppedGroup.WAIT);
        assertEquals(seq, texts("b"), "b delivered the group's history, each broadcast once");
    }

    @Test
    void everyoneAloneThenHealedContinuesWithoutGaps() {
        start(true, "a", "b", "c");
        g.send("b", 3);
        g.drop = (from, to) -> !from.equals(to);
        g.view("a");
        g.view("b");
        g.view("c");
        g.send("a", 1);
        g.heal();
        long merged = g.view("c", "b", "a");
        for (String n : List.of("a", "b", "c")) {
            assertFalse(g.node(n).epochOf(merged).gap(), n + " held the history: no gap");
        }
        assertEquals(List.of("b:0", "b:1", "b:2", "a:0"), g.node("c").delivered(4).stream().map(d -> d.text()).toList());
    }

    @Test
    void aReplicaRestartedAfterACrashDoesNotCountTowardsAPrimary() {
        g = new SteppedGroup(new GroupConfig(3, true)).add("r0#1", "r1#1", "r2#1");
        g.view("r0#1", "r1#1");
        g.view("r0#1", "r1#1", "r2#1");
        g.node("r2#1").order.synced();
        g.send("r1#1", 2);
        g.crash("r2#1");
        g.view("r0#1", "r1#1");
        g.crash("r1#1");
        g.add("r2#2");
        g.view("r0#1", "r2#2");
        String why = g.node("r0#1").notPrimary(1);
        assertTrue(why.contains("only 1 of the 3 replicas here hold the group's history"), why);
        g.add("r1#2");
        g.view("r0#1", "r2#2", "r1#2");
        assertTrue(g.node("r1#2").notPrimary(1).contains("only 1 of the 3"), "two of three lost their memory");
    }

    @Test
    void aViewWhoseLatestEpochHoldsNoSyncedStateIsNotPrimary() {
        start(true, "a", "b", "c");
        g.partition(Set.of("c"));
        g.view("a", "b");
        g.view("c");
        g.heal();
        long merged = g.view("a", "b", "c");   // c: gap, not synced yet
        assertTrue(g.node("c").epochOf(merged).gap());
        g.crash("b");
        g.add("b2");
        g.view("a", "c", "b2");  // b2: fresh
        g.partition(Set.of("a"));
        long cb = g.view("c", "b2");
        g.view("a");
        String why = g.node("c").notPrimaryOf(cb);
        assertTrue(why.contains("no member of the latest epoch"), why);
        g.heal();
        long last = g.view("a", "c", "b2");
        assertFalse(g.node("a").epochOf(last).gap(), "a held the synced state all along");
    }
}
