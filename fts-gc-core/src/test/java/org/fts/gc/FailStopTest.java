package org.fts.gc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.fts.gc.internal.DeliveryPump;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Fail-stop: an {@link Error} on a delivery or execution thread reaches {@link FailStop}'s action (in a replica,
 * a halt with exit status 70; here, recorded), on the failing thread, and the thread delivers nothing after it.
 * The halt itself, in a real replica process, is checked by the samples' {@code FailStopProcessTest}.
 */
class FailStopTest {
    private final CompletableFuture<Object[]> failed = new CompletableFuture<>();
    private FailStopHook.Action previous;

    @BeforeEach
    void record() {
        previous = FailStopHook.replace((thread, cause) -> failed.complete(new Object[] {thread, cause}));
    }

    @AfterEach
    void restore() {
        FailStopHook.replace(previous);
    }

    @Test
    void anErrorInADeliveryCallbackStopsTheProcessNotJustTheCallback() throws Exception {
        AtomicInteger delivered = new AtomicInteger();
        StackOverflowError boom = new StackOverflowError("deep servant");
        DeliveryPump pump = new DeliveryPump("failstop", new GroupListener() {
            @Override
            public void deliver(MemberId sender, byte[] payload) {
                if (new String(payload, StandardCharsets.UTF_8).equals("poison")) {
                    throw boom;
                }
                delivered.incrementAndGet();
            }

            @Override
            public void viewAccepted(View view) {
            }
        });
        pump.start();
        try {
            pump.broadcast(new MemberId("a"), "ok".getBytes(StandardCharsets.UTF_8));
            pump.broadcast(new MemberId("a"), "poison".getBytes(StandardCharsets.UTF_8));
            pump.broadcast(new MemberId("a"), "after".getBytes(StandardCharsets.UTF_8));
            Object[] f = failed.get(10, TimeUnit.SECONDS);
            assertSame(boom, f[1]);
            assertTrue(((Thread) f[0]).getName().startsWith("fts-deliver-failstop"), f[0].toString());
            assertEquals(1, delivered.get(), "nothing is delivered after the error");
        } finally {
            pump.stop(1000);
        }
    }

    @Test
    void anErrorOnAnExecutionThreadStopsTheProcess() throws Exception {
        ExecutorService lane = Executors.newSingleThreadExecutor(FailStop.threads("fts-exec-test"));
        try {
            OutOfMemoryError oom = new OutOfMemoryError("Java heap space");
            lane.execute(() -> {
                throw oom;
            });
            Object[] f = failed.get(10, TimeUnit.SECONDS);
            assertSame(oom, f[1]);
            assertTrue(((Thread) f[0]).getName().startsWith("fts-exec-test"), f[0].toString());
        } finally {
            lane.shutdownNow();
        }
    }

    @Test
    void aRuntimeExceptionInACallbackIsLoggedAndDeliveryGoesOn() throws Exception {
        AtomicInteger delivered = new AtomicInteger();
        DeliveryPump pump = new DeliveryPump("goes-on", new GroupListener() {
            @Override
            public void deliver(MemberId sender, byte[] payload) {
                if (delivered.incrementAndGet() == 1) {
                    throw new IllegalStateException("one bad message");
                }
            }

            @Override
            public void viewAccepted(View view) {
            }
        });
        pump.start();
        try {
            for (int i = 0; i < 3; i++) {
                pump.broadcast(new MemberId("a"), new byte[] {(byte) i});
            }
            org.fts.process.Waits.await(() -> delivered.get() == 3, Duration.ofSeconds(10), () -> "3 deliveries");
            assertTrue(!failed.isDone(), "an exception is not fatal");
        } finally {
            pump.stop(1000);
        }
    }
}
