package org.fts.gc.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.fts.gc.GroupListener;
import org.fts.gc.MemberId;
import org.fts.gc.View;
import org.fts.process.Waits;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Deferrable broadcasts ({@code fts.delivery.replay_delay}, {@link Wakeups}): a thread that lingers after one is not
 * woken by the next, but is by an urgent event, a flush, a full drain's worth, or the linger's end; order is kept;
 * with no delay, a deferrable broadcast wakes the thread like any other event. The linger here is an hour, so that
 * only the event under test can end it: "not woken" is read from the thread's state, which an offer that wakes it
 * changes before returning, and "woken" from the hand-over, which nothing else brings within the wait's bound.
 * (Once woken, the thread may linger again at once, so its state after a waking offer proves nothing.)
 */
class DeliveryPumpDeferTest {
    private static final MemberId OTHER = new MemberId("other");
    private static final Duration BOUND = Duration.ofSeconds(10);

    private final List<String> seen = new CopyOnWriteArrayList<>();
    private final List<DeliveryPump> pumps = new ArrayList<>();

    private DeliveryPump pump(long replayDelayNanos) {
        DeliveryPump p = new DeliveryPump("defer", new GroupListener() {
            @Override
            public void deliver(MemberId sender, byte[] payload) {
                seen.add("b" + payload.length);
            }

            @Override
            public void viewAccepted(View view) {
                seen.add("view");
            }
        }, Long.MAX_VALUE, () -> { }, replayDelayNanos);
        pumps.add(p);
        p.start();
        return p;
    }

    @AfterEach
    void stop() {
        pumps.forEach(p -> p.stop(5000));
    }

    /** Hands over one deferrable broadcast and waits until the thread lingers after it. */
    private DeliveryPump lingering() {
        DeliveryPump p = pump(Duration.ofHours(1).toNanos());
        p.broadcast(OTHER, new byte[1], true);   // an idle thread wakes for it at once
        Waits.await(() -> seen.size() == 1 && p.lingering(), BOUND, () -> "handed over, then lingering: " + seen);
        return p;
    }

    @Test
    void aDeferrableBroadcastDoesNotWakeALingeringThreadAndAnUrgentEventHandsItOverFirst() {
        DeliveryPump p = lingering();
        p.broadcast(OTHER, new byte[2], true);
        assertTrue(p.lingering(), "the deferrable broadcast left the thread asleep");
        assertEquals(1, p.pending());
        p.broadcast(OTHER, new byte[3]);   // urgent: the member's own, say
        Waits.await(() -> seen.size() == 3, BOUND, () -> "the urgent event woke it: both handed over: " + seen);
        assertEquals(List.of("b1", "b2", "b3"), seen, "in offer order");
    }

    @Test
    void aViewWakesItToo() {
        DeliveryPump p = lingering();
        p.broadcast(OTHER, new byte[2], true);
        p.view(new View(1, List.of(OTHER), OTHER));
        Waits.await(() -> seen.size() == 3, BOUND, () -> "handed over: " + seen);
        assertEquals(List.of("b1", "b2", "view"), seen);
    }

    @Test
    void aFlushHandsOverWhatWaits() {
        DeliveryPump p = lingering();
        p.broadcast(OTHER, new byte[2], true);
        assertTrue(p.lingering());
        p.flush();
        Waits.await(() -> seen.size() == 2, BOUND, () -> "handed over: " + seen);
        assertEquals(List.of("b1", "b2"), seen);
    }

    @Test
    void aFlushWithNothingQueuedLeavesItAsleep() {
        DeliveryPump p = lingering();
        p.flush();
        assertTrue(p.lingering());
    }

    @Test
    void aDrainsWorthOfDeferrableBroadcastsWakesIt() {
        DeliveryPump p = lingering();
        for (int i = 0; i < 255; i++) {
            p.broadcast(OTHER, new byte[2], true);
        }
        assertTrue(p.lingering(), "255 queued: still asleep");
        p.broadcast(OTHER, new byte[2], true);
        Waits.await(() -> seen.size() == 257, BOUND, () -> "the 256th woke it: " + seen.size() + " handed over");
    }

    @Test
    void theLingerEndsByItselfWithinTheDelay() {
        DeliveryPump p = pump(Duration.ofMillis(20).toNanos());
        p.broadcast(OTHER, new byte[1], true);
        Waits.await(() -> seen.size() == 1, BOUND, () -> "first: " + seen);
        p.broadcast(OTHER, new byte[2], true);   // nothing else comes: the linger's end hands it over
        Waits.await(() -> seen.size() == 2, BOUND, () -> "second: " + seen);
        Waits.await(() -> !p.lingering(), BOUND, () -> "asleep until the next event, not lingering again");
        p.broadcast(OTHER, new byte[3], true);   // an idle thread wakes at once, however deferrable
        Waits.await(() -> seen.size() == 3, BOUND, () -> "third: " + seen);
        assertEquals(List.of("b1", "b2", "b3"), seen);
    }

    @Test
    void withNoDelayNothingLingers() {
        DeliveryPump p = pump(0);
        for (int i = 1; i <= 3; i++) {
            p.broadcast(OTHER, new byte[i], true);
            int n = i;
            Waits.await(() -> seen.size() == n, BOUND, () -> "handed over: " + seen);
            assertFalse(p.lingering());
        }
    }
}
