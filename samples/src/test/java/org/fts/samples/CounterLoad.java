package org.fts.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

import fts_samples.Counter;
import fts_samples.CounterHelper;
import org.fts.process.Waits;
import org.omg.CORBA.ORB;

/** FT clients incrementing the group's counter until stopped; every value they were answered. */
final class CounterLoad {
    final List<Integer> values = Collections.synchronizedList(new ArrayList<>());
    final List<Throwable> errors = Collections.synchronizedList(new ArrayList<>());
    final AtomicBoolean stop = new AtomicBoolean();
    final List<Thread> threads = new ArrayList<>();
    /** When the latest answer came, and the longest time any client load went without one (nanoseconds). */
    final java.util.concurrent.atomic.AtomicLong lastAnswer = new java.util.concurrent.atomic.AtomicLong(System.nanoTime());
    final java.util.concurrent.atomic.AtomicLong longestGap = new java.util.concurrent.atomic.AtomicLong();

    CounterLoad(ORB ft, String ref, int clients) {
        for (int c = 0; c < clients; c++) {
            Counter mine = CounterHelper.narrow(ft.string_to_object(ref));
            Thread t = new Thread(() -> {
                try {
                    while (!stop.get()) {
                        values.add(mine.increment());
                        long now = System.nanoTime();
                        long gap = now - lastAnswer.getAndSet(now);
                        longestGap.accumulateAndGet(gap, Math::max);
                    }
                } catch (Throwable e) {
                    errors.add(e);
                }
            }, "membership-client-" + c);
            threads.add(t);
            t.start();
        }
    }

    void awaitMore(int calls, String what) {
        int target = values.size() + calls;
        Waits.await(() -> values.size() >= target || !errors.isEmpty(), Duration.ofSeconds(60),
                () -> what + ": " + values.size() + " of " + target + " calls");
        assertEquals(List.of(), errors);
    }

    int finish() throws InterruptedException {
        stop.set(true);
        for (Thread t : threads) {
            t.join(60_000);
            assertTrue(!t.isAlive(), t.getName() + " still running");
        }
        assertEquals(List.of(), errors);
        Set<Integer> unique = new HashSet<>(values);
        assertEquals(values.size(), unique.size(), "a value was returned twice");
        assertEquals(values.size(), (int) Collections.max(values), "values are exactly 1..acknowledged");
        return values.size();
    }
}
