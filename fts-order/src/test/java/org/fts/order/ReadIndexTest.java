package org.fts.order;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.fts.gc.GroupConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The read index of {@link TotalOrder} (docs/reads.md), stepped deterministically: a sequencer cut off from a newer
 * epoch confirms no read, even its own, while the newer epoch's members read every write it answered; five
 * replicas confirm a follower's read with a round of pings.
 */
class ReadIndexTest {
    private SteppedGroup g;

    @AfterEach
    void stop() {
        if (g != null) {
            g.close();
        }
    }

    @Test
    void aSequencerCutOffFromANewerEpochConfirmsNoReadWhileTheNewerEpochReadsEveryWriteItAnswered()
            throws Exception {
        g = new SteppedGroup(new GroupConfig(3, true)).add("c", "a", "b");
        g.view("c", "a");
        g.view("c", "a", "b");   // c coordinates: the sequencer
        g.send("a", 2);
        g.partition(Set.of("c"));
        g.view("a", "b");        // a and b go on without c, which never hears of it
        g.send("a", 3);          // answered by the newer epoch: c never delivers them
        assertEquals(5, g.node("b").delivered(5).size());
        CompletableFuture<List<String>> atC = g.readBarrier("c");
        g.run();
        assertFalse(atC.isDone(), "c's own read waits for a pong no member of its epoch sends");
        g.node("c").order.readTick(System.nanoTime() + 2 * ReadRequester.TIMEOUT_NANOS);
        Throwable refused = atC.handle((v, e) -> e).get(10, TimeUnit.SECONDS);
        assertTrue(refused != null, "refused, so the read is ordered (and fails there), never read from c's state");
        CompletableFuture<List<String>> atB = g.readBarrier("b");
        g.run();
        assertEquals(List.of("a:0", "a:1", "a:2", "a:3", "a:4"), atB.get(10, TimeUnit.SECONDS),
                "a read at b, through its sequencer a, holds every write answered before it");
        CompletableFuture<List<String>> atA = g.readBarrier("a");   // the sequencer's own read: b's pong confirms it
        g.run();
        assertEquals(5, atA.get(10, TimeUnit.SECONDS).size());
    }

    @Test
    void fiveReplicasConfirmAFollowersReadWithARoundOfPingsAndAMinorityRefuses() throws Exception {
        g = new SteppedGroup(new GroupConfig(5, true)).add("a", "b", "c", "d", "e");
        g.view("a", "b", "c");
        g.view("a", "b", "c", "d", "e");
        g.send("b", 4);
        CompletableFuture<List<String>> atE = g.readBarrier("e");
        g.run();
        assertEquals(List.of("b:0", "b:1", "b:2", "b:3"), atE.get(10, TimeUnit.SECONDS));
        g.partition(Set.of("a", "e"));   // the sequencer and e: a minority of five, unaware
        CompletableFuture<List<String>> cutOff = g.readBarrier("e");
        g.run();
        assertFalse(cutOff.isDone(), "the sequencer hears itself and e: two of five");
        g.node("a").order.readTick(System.nanoTime() + 2 * ReadRequester.TIMEOUT_NANOS);
        g.run();
        Throwable refused = cutOff.handle((v, e) -> e).get(10, TimeUnit.SECONDS);
        assertTrue(refused != null, "refused once the round timed out");
    }
}
