package org.fts.gc.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.fts.gc.GroupListener;
import org.fts.gc.MemberId;
import org.fts.gc.View;
import org.junit.jupiter.api.Test;

/**
 * The pump's bound on the broadcasts it queues ({@code fts.delivery.max_backlog}): a listener that does not keep
 * up (here: a pump not drained) gets at most the bound queued; past it, broadcasts are dropped, the binding is told
 * once at the start of the shed, the listener is told in order after what was queued, and broadcasts queue again
 * after that. Nothing but broadcasts is ever dropped.
 */
class DeliveryPumpBacklogTest {
    private static final MemberId A = new MemberId("a");

    private final List<String> seen = new ArrayList<>();
    private final AtomicInteger bindingTold = new AtomicInteger();
    private final GroupListener listener = new GroupListener() {
        @Override
        public void deliver(MemberId sender, byte[] payload) {
            seen.add("deliver " + payload.length);
        }

        @Override
        public void viewAccepted(View view) {
            seen.add("view");
        }

        @Override
        public void fellBehind(long missed) {
            seen.add("behind " + missed);
        }

        @Override
        public void receive(MemberId sender, byte[] payload) {
            seen.add("direct");
        }
    };

    @Test
    void pastTheBoundBroadcastsAreDroppedAndTheListenerIsToldAfterWhatWasQueued() {
        DeliveryPump pump = new DeliveryPump("backlog", listener, 1000, bindingTold::incrementAndGet);
        for (int i = 0; i < 3; i++) {
            pump.broadcast(A, new byte[300]);
        }
        assertEquals(900, pump.pendingBytes());
        assertEquals(0, bindingTold.get());
        assertTrue(pump.noGapPending());

        pump.broadcast(A, new byte[300]);   // 1200 > 1000: the shed starts
        pump.direct(A, new byte[10]);       // never dropped
        pump.broadcast(A, new byte[1]);     // dropped: the shed goes on however small
        pump.broadcast(A, new byte[300]);
        assertEquals(1, bindingTold.get(), "the binding is told once, when the shed starts");
        assertFalse(pump.noGapPending(), "a state installed before the listener hears of it is stale");
        assertEquals(900, pump.pendingBytes());

        pump.drain();
        assertEquals(List.of("deliver 300", "deliver 300", "deliver 300", "behind 3", "direct"), seen);
        assertTrue(pump.noGapPending());
        assertEquals(0, pump.pendingBytes());

        seen.clear();
        pump.broadcast(A, new byte[300]);   // told: broadcasts queue again
        pump.drain();
        assertEquals(List.of("deliver 300"), seen);
        assertArrayEquals(new long[] {1, 3}, pump.sheds());
    }

    @Test
    void aBroadcastLargerThanTheBoundQueuesAloneAndTheNextOneSheds() {
        DeliveryPump pump = new DeliveryPump("backlog", listener, 1000, bindingTold::incrementAndGet);
        pump.broadcast(A, new byte[5000]);
        assertEquals(5000, pump.pendingBytes());
        pump.broadcast(A, new byte[10]);
        assertEquals(1, bindingTold.get());
        pump.drain();
        assertEquals(List.of("deliver 5000", "behind 1"), seen);
    }

    @Test
    void aRestartedMembersOwnLogIsReplayedWhateverTheBacklogAndLiveBroadcastsAfterItAreBounded() {
        DeliveryPump pump = new DeliveryPump("backlog", listener, 100, bindingTold::incrementAndGet);
        for (int i = 0; i < 5; i++) {
            pump.replay(A, new byte[60]);
        }
        assertEquals(300, pump.pendingBytes());
        assertEquals(0, bindingTold.get(), "no other member may be able to give a state: never shed");
        pump.broadcast(A, new byte[1]);   // live, behind a replay past the bound: sheds
        pump.drain();
        assertEquals(List.of("deliver 60", "deliver 60", "deliver 60", "deliver 60", "deliver 60", "behind 1"), seen);
    }

    /**
     * The listener's answer to falling behind is a state marker it casts from the callback; a binding may order it
     * and queue it here before the callback returns (the in-JVM binding does): it must not be dropped.
     */
    @Test
    void aBroadcastQueuedFromTheCallbackIsDelivered() {
        DeliveryPump[] pump = new DeliveryPump[1];
        GroupListener marking = new GroupListener() {
            @Override
            public void deliver(MemberId sender, byte[] payload) {
                seen.add("deliver " + payload.length);
            }

            @Override
            public void viewAccepted(View view) {
            }

            @Override
            public void fellBehind(long missed) {
                seen.add("behind " + missed);
                pump[0].broadcast(A, new byte[7]);   // its marker, ordered at once
            }
        };
        pump[0] = new DeliveryPump("backlog", marking, 100, bindingTold::incrementAndGet);
        pump[0].broadcast(A, new byte[100]);
        pump[0].broadcast(A, new byte[100]);
        pump[0].drain();
        assertEquals(List.of("deliver 100", "behind 1", "deliver 7"), seen);
    }

    @Test
    void aSecondShedIsCountedAndToldAsItsOwn() {
        DeliveryPump pump = new DeliveryPump("backlog", listener, 100, bindingTold::incrementAndGet);
        pump.broadcast(A, new byte[100]);
        pump.broadcast(A, new byte[1]);
        pump.drain();
        pump.broadcast(A, new byte[60]);
        pump.broadcast(A, new byte[60]);
        pump.broadcast(A, new byte[60]);
        pump.drain();
        assertEquals(List.of("deliver 100", "behind 1", "deliver 60", "behind 2"), seen);
        assertEquals(2, bindingTold.get());
        assertArrayEquals(new long[] {2, 3}, pump.sheds());
    }
}
