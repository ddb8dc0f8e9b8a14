package org.fts.batching;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

/** Every policy's send decision, under a manual clock and scripted arrivals: no sleeps, no timer thread. */
class BatchPolicyTest {
    private long now;
    private final List<List<String>> sent = new ArrayList<>();
    private Batcher batcher;

    private Batcher with(BatchPolicy p) {
        batcher = new Batcher(p, () -> now, b -> sent.add(BatchCodec.decode(b).stream()
                .map(m -> new String(m, StandardCharsets.UTF_8)).toList()), null);
        return batcher;
    }

    private void cast(String m) {
        batcher.cast(m.getBytes(StandardCharsets.UTF_8));
    }

    private void at(double micros) {
        now = (long) (micros * 1000);
    }

    @Test
    void nbSendsEveryCastAtOnce() {
        with(BatchPolicies.none());
        cast("a");
        cast("b");
        assertEquals(List.of(List.of("a"), List.of("b")), sent);
    }

    @Test
    void abSendsWhenTheDoorwayIsEmptyAndHoldsWhileAnotherThreadIsInside() {
        with(BatchPolicies.adaptive("long"));
        batcher.enter();                    // thread A is processing its request
        cast("b");                          // B casts (short doorway) while A is inside: hold
        assertEquals(List.of(), sent);
        batcher.exit("a".getBytes(StandardCharsets.UTF_8));   // A exits, nobody inside: send both
        assertEquals(List.of(List.of("b", "a")), sent);
        cast("c");                          // alone: at once
        assertEquals(List.of(List.of("b", "a"), List.of("c")), sent);
        batcher.enter();
        cast("d");
        batcher.leave();                    // A's request failed before its cast: the doorway empties
        assertEquals(List.of("d"), sent.get(2));
    }

    @Test
    void tabSendsExactlyOneDoorwayAfterTheLastCast() {
        with(BatchPolicies.timedAdaptive(Duration.ofNanos(500_000)));
        at(0);
        cast("a");
        at(400);
        cast("b");                          // restarts the doorway
        at(899.999);
        assertFalse(batcher.tick());
        at(900);
        assertTrue(batcher.tick());
        assertEquals(List.of(List.of("a", "b")), sent);
        at(5000);
        assertFalse(batcher.tick(), "nothing pending, nothing sent");
    }

    @Test
    void atabSendsALoneRequestAtOnceAndBatchesLikeTabUnderLoad() {
        with(BatchPolicies.aloneAwareTimedAdaptive(Duration.ofNanos(500_000)));
        at(0);
        cast("first");                      // nothing before it: at once
        at(600);
        cast("lone");                       // 600 us of quiet >= the doorway, nobody inside: at once
        assertEquals(List.of(List.of("first"), List.of("lone")), sent);

        at(700);
        cast("a");                          // only 100 us after the last cast: load, TAB's rule
        at(900);
        cast("b");                          // restarts the doorway
        assertEquals(2, sent.size(), "held as TAB holds");
        at(1399.999);
        assertFalse(batcher.tick());
        at(1400);
        assertTrue(batcher.tick(), "TAB: one doorway after the last cast");
        assertEquals(List.of("a", "b"), sent.get(2));

        at(5000);
        batcher.enter();                    // a thread is processing its request
        cast("c");                          // quiet before it, but someone inside the doorway may join: hold
        assertEquals(3, sent.size());
        batcher.exit("d".getBytes(StandardCharsets.UTF_8));   // 0 us after "c": not quiet, TAB's timer
        assertEquals(3, sent.size());
        at(5500);
        assertTrue(batcher.tick());
        assertEquals(List.of("c", "d"), sent.get(3));
    }

    @Test
    void atabSendsALoneCastAtOnceWhenNothingOfItsMemberIsInFlightWhateverTheQuiet() {
        with(BatchPolicies.aloneAwareTimedAdaptive(Duration.ofNanos(500_000)));
        at(0);
        cast("a");                          // at once
        at(50);
        batcher.ownBatchDelivered();        // a round trip shorter than the doorway
        at(100);
        cast("b");                          // only 100 us of quiet, but nothing in flight and nobody inside: at once
        assertEquals(List.of(List.of("a"), List.of("b")), sent);
        at(150);
        cast("c");                          // "b" still in flight: TAB holds it
        assertEquals(2, sent.size());
        at(649.999);
        assertFalse(batcher.tick());
        at(650);
        assertTrue(batcher.tick(), "TAB: one doorway after the last cast");
        assertEquals(List.of("c"), sent.get(2));
        batcher.ownBatchDelivered();
        batcher.ownBatchDelivered();
        at(700);
        batcher.enter();                    // another request is being processed here
        cast("d");                          // nothing in flight, but someone inside may join it: held
        assertEquals(3, sent.size());
        batcher.exit("e".getBytes(StandardCharsets.UTF_8));
        at(1200);
        assertTrue(batcher.tick());
        assertEquals(List.of("d", "e"), sent.get(3));
    }

    @Test
    void cbSendsAtTheCountOrAtTheBackupTimeout() {
        with(BatchPolicies.count(3, Duration.ofMillis(10)));
        at(0);
        cast("a");
        cast("b");
        assertEquals(List.of(), sent);
        cast("c");
        assertEquals(List.of(List.of("a", "b", "c")), sent);
        at(100);
        cast("d");
        at(100 + 9_999);
        assertFalse(batcher.tick());
        at(100 + 10_000);
        assertTrue(batcher.tick());
        assertEquals(List.of("d"), sent.get(1));
    }

    @Test
    void tbSendsEveryWindowWhateverAccumulatedAndLateTimersDoNotStretchWindows() {
        with(BatchPolicies.time(Duration.ofMillis(1)));
        at(0);
        cast("a");
        at(200);
        cast("b");
        at(999);
        assertFalse(batcher.tick());
        at(1000);
        assertTrue(batcher.tick());
        at(1200);
        cast("c");
        at(2300);                            // the timer ran late
        assertTrue(batcher.tick());
        at(2900);
        cast("d");
        at(2999);
        assertFalse(batcher.tick(), "the window still ends at 3 ms, not 2.3 + 1 ms");
        at(3000);
        assertTrue(batcher.tick());
        at(4000);
        assertFalse(batcher.tick(), "an empty window sends nothing");
        assertEquals(List.of(List.of("a", "b"), List.of("c"), List.of("d")), sent);
    }

    @Test
    void boundedHybridsRespectMaxCountAndMaxDelay() {
        with(BatchPolicies.bounded(BatchPolicies.timedAdaptive(Duration.ofMillis(1)), Duration.ZERO, 3));
        at(0);
        cast("a");
        cast("b");
        cast("c");                           // TAB would wait; the count bound sends
        assertEquals(List.of(List.of("a", "b", "c")), sent);

        sent.clear();
        with(BatchPolicies.bounded(BatchPolicies.timedAdaptive(Duration.ofMillis(1)), Duration.ofMillis(2), 0));
        for (int i = 0; i < 10; i++) {       // a steady stream every 0.5 ms: TAB alone would never send
            at(i * 500);
            cast("m" + i);
            boolean fired = batcher.tick();
            if (i < 4) {
                assertFalse(fired, "not before 2 ms after the first (at " + i * 500 + " us)");
            } else if (i == 4) {
                assertTrue(fired, "exactly at 2 ms after the first");
            }
        }
        assertEquals(List.of("m0", "m1", "m2", "m3", "m4"), sent.get(0), "sent at 2 ms after the first");
    }

    @Test
    void naturalNeverHasMoreThanKInFlight() {
        with(BatchPolicies.natural(2));
        cast("a");
        cast("b");
        assertEquals(2, batcher.inFlight());
        cast("c");
        cast("d");
        assertEquals(2, sent.size(), "held while 2 are in flight");
        batcher.ownBatchDelivered();
        assertEquals(List.of("c", "d"), sent.get(2), "the accumulated batch goes when one lands");
        assertEquals(2, batcher.inFlight());
        batcher.ownBatchDelivered();
        batcher.ownBatchDelivered();
        assertEquals(0, batcher.inFlight());
        batcher.ownBatchDelivered();
        assertEquals(0, batcher.inFlight(), "never negative");
    }

    @Test
    void aBatchThatCouldNotBeSentReleasesItsInFlightSlot() {
        boolean[] fail = {true};
        batcher = new Batcher(BatchPolicies.natural(1), () -> now, b -> {
            if (fail[0]) {
                throw new IllegalStateException("channel closed");
            }
            sent.add(List.of("ok"));
        }, null);
        cast("lost");
        assertEquals(0, batcher.inFlight(), "natural must not wait for a delivery that cannot come");
        fail[0] = false;
        cast("next");
        assertEquals(1, sent.size(), "the next cast is sent at once");
    }

    @Test
    void packSendsAtThePackingDegreeOrAfterThePackingInterval() {
        PackingPolicy p = (PackingPolicy) BatchPolicies.packing(50, Duration.ofMillis(5), Duration.ofSeconds(1));
        with(p);
        p.measure(1000);                     // first measurement: start packing
        assertEquals(2, p.pack());
        at(0);
        cast("a");
        assertEquals(List.of(), sent);
        cast("b");
        assertEquals(List.of(List.of("a", "b")), sent);
        at(10);
        cast("c");
        at(10 + 4_999);
        assertFalse(batcher.tick());
        at(10 + 5_000);
        assertTrue(batcher.tick(), "the packing interval bounds the wait");
    }

    @Test
    void packFollowsTheRefinedRuleAndDoesNotCollapseOnATransientDip() {
        PackingPolicy p = new PackingPolicy(100, Duration.ofMillis(5), Duration.ofSeconds(1));
        p.measure(100);                      // -> 2
        p.measure(200);                      // rising after an increase -> 3
        p.measure(300);                      // -> 4
        assertEquals(4, p.pack());
        p.measure(250);                      // a transient dip after an increase -> 3
        assertEquals(3, p.pack());
        p.measure(200);                      // still falling after a decrease: the simple rule would go on to 1
        assertEquals(4, p.pack(), "refined: falling after a decrease means go back up");
        p.measure(300);                      // the load is gone, rising after an increase -> 5
        assertEquals(5, p.pack());
    }

    @Test
    void packKeepsDecreasingTowardsALowerOptimumInsteadOfOscillating() {
        // Their Figure 2: pack reached pB = 6 on curve B; then the load changes to curve A, whose optimum is 3.
        // The simple rule would bounce between 5 and 6; the refined one walks down to A's optimum.
        PackingPolicy p = new PackingPolicy(100, Duration.ofMillis(5), Duration.ofSeconds(1));
        for (double t : new double[] {1000, 1100, 1200, 1300, 1400}) {
            p.measure(t);
        }
        assertEquals(6, p.pack());
        List<Integer> trace = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            p.measure(400 - 50 * Math.abs(p.pack() - 3));   // curve A
            trace.add(p.pack());
        }
        assertEquals(List.of(5, 4, 3, 2, 3, 4, 3, 2), trace, "down to A's optimum, then around it");
    }
}
