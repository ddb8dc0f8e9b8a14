package org.fts.gc.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import org.fts.gc.GroupListener;
import org.fts.gc.MemberId;
import org.fts.process.Waits;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link DeliveryPump#taskNowIfIdle}: on the calling thread only when every event offered before has been handled,
 * with the delivery thread held off meanwhile (and {@link DeliveryPump#isDeliveryThread} true there); behind the
 * queued events, on the delivery thread, when the pump is busy.
 */
class DeliveryPumpInlineTest {
    private static final MemberId A = new MemberId("a");

    private final List<String> seen = new CopyOnWriteArrayList<>();
    private final CountDownLatch release = new CountDownLatch(1);
    private final AtomicBoolean block = new AtomicBoolean();
    private final DeliveryPump pump = new DeliveryPump("inline", new GroupListener() {
        @Override
        public void deliver(MemberId sender, byte[] payload) {
            if (block.get()) {
                try {
                    release.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            seen.add("deliver " + payload.length);
        }

        @Override
        public void viewAccepted(org.fts.gc.View view) {
        }
    });

    @AfterEach
    void stop() {
        release.countDown();
        pump.stop(5000);
    }

    @Test
    void anIdlePumpRunsTheTaskOnTheCallersThreadAsIfOnTheDeliveryThread() {
        pump.start();
        pump.broadcast(A, new byte[1]);
        assertTrue(Waits.until(pump::idle, Duration.ofSeconds(10)) > 0, "the broadcast handed over");
        AtomicReference<Thread> ranOn = new AtomicReference<>();
        AtomicBoolean asDelivery = new AtomicBoolean();
        pump.taskNowIfIdle(() -> {
            ranOn.set(Thread.currentThread());
            asDelivery.set(pump.isDeliveryThread());
            seen.add("task");
        });
        assertSame(Thread.currentThread(), ranOn.get(), "ran before taskNowIfIdle returned, here");
        assertTrue(asDelivery.get(), "in the delivery thread's stead");
        assertFalse(pump.isDeliveryThread(), "only during the task");
        assertEquals(List.of("deliver 1", "task"), seen);
    }

    @Test
    void aBusyPumpRunsItBehindWhatWasQueuedOnTheDeliveryThread() {
        pump.start();
        block.set(true);
        pump.broadcast(A, new byte[2]);   // its callback blocks until released
        AtomicReference<Thread> ranOn = new AtomicReference<>();
        pump.taskNowIfIdle(() -> {
            ranOn.set(Thread.currentThread());
            seen.add("task");
        });
        assertEquals(List.of(), seen, "queued: not run ahead of the delivery still in its callback");
        release.countDown();
        assertTrue(Waits.until(() -> seen.size() == 2, Duration.ofSeconds(10)) > 0, "the task ran");
        assertEquals(List.of("deliver 2", "task"), seen);
        assertFalse(Thread.currentThread() == ranOn.get(), "on the delivery thread");
    }

    @Test
    void aPumpNeverStartedQueuesItForTheDrain() {
        pump.taskNowIfIdle(() -> seen.add("task"));
        assertEquals(List.of(), seen);
        pump.drain();
        assertEquals(List.of("task"), seen);
    }
}
