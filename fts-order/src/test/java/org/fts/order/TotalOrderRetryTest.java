package org.fts.order;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import java.util.List;
import java.util.Set;

import org.fts.gc.GroupConfig;
import org.junit.jupiter.api.Test;

/**
 * A recovery whose report was lost (a control message JGroups dropped with a connection it reset around an
 * exclusion and a merge): the coordinator's timer asks again, the member answers with the same report, and the
 * epoch opens; a repeated request that the outcome overtook changes nothing.
 */
class TotalOrderRetryTest {
    @Test
    void aLostReportIsAskedForAgainAndTheEpochOpens() {
        try (SteppedGroup g = new SteppedGroup(new GroupConfig(3, true)).add("a", "b", "c")) {
            g.view("a", "b", "c");
            g.send("b", 3);
            g.node("c").delivered(3);
            g.drop = (from, to) -> from.name().equals("c") && to.name().equals("a");
            g.dropOnly = Set.of(Wire.State.class);
            long v = g.view("a", "b", "c");
            assertInstanceOf(Phase.Frozen.class, g.node("c").order.phase(), "c reported; its report was lost");
            assertInstanceOf(Phase.Frozen.class, g.node("a").order.phase(), "the coordinator still waits for it");
            g.heal();
            SteppedGroup.Node a = g.node("a");
            a.order.retryRecovery(0, 1_000);   // the first tick only notes the recovery
            g.run();
            assertInstanceOf(Phase.Frozen.class, a.order.phase(), "not before the interval");
            a.order.retryRecovery(1_000, 1_000);
            g.run();
            for (String n : List.of("a", "b", "c")) {
                assertEquals(v, g.node(n).epochOf(v).id(), n + " opened the epoch of view " + v);
            }
            a.order.retryRecovery(2_000, 1_000);   // nothing missing any more: no request
            g.run();
            g.send("c", 2);
            for (String n : List.of("a", "b", "c")) {
                assertEquals(List.of("b:0", "b:1", "b:2", "c:0", "c:1"), g.node(n).texts(), n);
            }
        }
    }

    @Test
    void aMemberARecoveryWaitsForAndThatAnswersNoProbeIsExcludedOneThatAnswersIsNot() {
        try (SteppedGroup g = new SteppedGroup(new GroupConfig(3, true)).add("a", "b", "c")) {
            g.view("a", "b", "c");
            g.drop = (from, to) -> from.name().equals("c") && to.name().equals("a");   // c's way to a is cut
            g.view("a", "b", "c");
            SteppedGroup.Node a = g.node("a");
            long s = 1_000;
            for (long t = 0; t < 2 * s; t += s / 10) {   // waits the patience, then probes for as long
                a.order.retryRecovery(t, s);
                a.order.watchStalls(t, s);
                g.run();
            }
            assertEquals(List.of(), a.excluded, "not before it left probes unanswered for the whole patience");
            a.order.watchStalls(2 * s, s);
            assertEquals(List.of(g.node("c").id), a.excluded, "c never reported nor answered: excluded");

            g.heal();
            g.view("a", "b", "c");
            a.excluded.clear();
            g.dropOnly = Set.of(Wire.State.class);   // c's reports are lost, but it answers probes
            g.drop = (from, to) -> from.name().equals("c") && to.name().equals("a");
            g.view("a", "b", "c");
            for (long t = 10 * s; t <= 14 * s; t += s / 10) {
                a.order.watchStalls(t, s);
                g.run();
            }
            assertEquals(List.of(), a.excluded, "a member that answers is merely slow: it stays");
        }
    }

    @Test
    void membersTheRecoveryCannotDoWithoutAreWaitedForNotExcluded() {
        try (SteppedGroup g = new SteppedGroup(new GroupConfig(3, true)).add("a", "b", "c")) {
            g.view("a", "b", "c");
            g.drop = (from, to) -> to.name().equals("a") && !from.name().equals("a");   // a hears nobody
            g.view("a", "b", "c");
            SteppedGroup.Node a = g.node("a");
            long s = 1_000;
            for (long t = 0; t <= 5 * s; t += s / 10) {
                a.order.retryRecovery(t, s);
                a.order.watchStalls(t, s);
                g.run();
            }
            assertEquals(List.of(), a.excluded, "a alone cannot be primary: without b and c nothing is decided, so "
                    + "excluding them helps nobody");
        }
    }

    @Test
    void aRepeatedRequestAfterTheEpochOpenedChangesNothing() {
        try (SteppedGroup g = new SteppedGroup(new GroupConfig(3, true)).add("a", "b", "c")) {
            long v = g.view("a", "b", "c");
            g.send("a", 2);
            g.node("b").receiveForTest("a", new Wire.StateReq(v, v));   // late, after its epoch opened (ballot: the view id)
            g.run();
            assertInstanceOf(Phase.Open.class, g.node("b").order.phase());
            g.send("b", 1);
            for (String n : List.of("a", "b", "c")) {
                assertEquals(List.of("a:0", "a:1", "b:0"), g.node(n).texts(), n);
            }
        }
    }
}
