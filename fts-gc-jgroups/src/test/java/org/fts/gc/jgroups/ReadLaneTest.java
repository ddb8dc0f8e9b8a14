package org.fts.gc.jgroups;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.fts.gc.MemberId;
import org.fts.process.Waits;
import org.junit.jupiter.api.Test;

/**
 * The read barriers' messages are handled on a thread of their own, never on the JGroups thread that received them
 * (docs/reads.md, "Threads"; chaos pause seed 62: JGroups' pool filled with pongs waiting for the sequencer's
 * monitor, and the member hung).
 */
class ReadLaneTest {
    private static final MemberId FROM = new MemberId("r0#1");

    @Test
    void aReadMessageIsHandledOnTheLaneInOrderAndTheReceiverNeverWaitsForIt() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        List<String> handled = new CopyOnWriteArrayList<>();
        List<Thread> on = new CopyOnWriteArrayList<>();
        try (ReadLane lane = new ReadLane("r1#1")) {
            for (byte tag = 22; tag <= 25; tag++) {   // index, ping, pong, answer
                byte[] msg = {tag, 1, 2};
                boolean taken = lane.offer(FROM, msg, (src, m) -> {
                    on.add(Thread.currentThread());
                    try {
                        release.await(10, TimeUnit.SECONDS);   // as a pong waits for a busy sequencer
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    handled.add(src + ":" + m[0]);
                });
                assertTrue(taken, "tag " + tag + " is a read barrier's message");
            }
            assertEquals(List.of(), handled, "the receiving thread returned before any was handled");
            release.countDown();
            Waits.await(() -> handled.size() == 4, Duration.ofSeconds(10), () -> "handled: " + handled);
            assertEquals(List.of("r0#1:22", "r0#1:23", "r0#1:24", "r0#1:25"), handled, "in arrival order");
            assertEquals(1, on.stream().distinct().count(), "one lane thread");
            assertNotEquals(Thread.currentThread(), on.get(0));
            assertFalse(lane.offer(FROM, new byte[] {1, 0}, (src, m) -> handled.add("other")),
                    "any other message is the caller's to handle");
            assertFalse(lane.offer(FROM, new byte[0], (src, m) -> handled.add("empty")));
        }
    }
}
