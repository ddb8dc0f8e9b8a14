package org.fts.goa.behaviour;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.IntStream;

import java.util.function.IntSupplier;

/**
 * The counter check shared by the replica tests: {@code clients} threads, client {@code c} calling
 * {@code increment()} {@code each} times through {@code refs.get(c % refs.size())}; every call succeeds and
 * the returned values are exactly {@code base+1 .. base+clients*each}: no duplicate, no gap. A reference is
 * its {@code increment} (any counter IDL: {@code counter::increment}).
 */
public final class CounterLoad {
    private CounterLoad() {
    }

    public static void runAndCheck(List<? extends IntSupplier> refs, int clients, int each, int base)
            throws InterruptedException {
        List<Integer> seen = Collections.synchronizedList(new ArrayList<>());
        List<Throwable> errors = Collections.synchronizedList(new ArrayList<>());
        List<Thread> threads = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            IntSupplier mine = refs.get(c % refs.size());
            Thread t = new Thread(() -> {
                try {
                    for (int k = 0; k < each; k++) {
                        seen.add(mine.getAsInt());
                    }
                } catch (Throwable e) {
                    errors.add(e);
                }
            }, "counter-client-" + c);
            threads.add(t);
            t.start();
        }
        for (Thread t : threads) {
            t.join(60_000);
            if (t.isAlive()) {
                throw new AssertionError(t.getName() + " still running after 60 s");
            }
        }
        assertEquals(List.of(), errors);
        List<Integer> sorted = new ArrayList<>(seen);
        Collections.sort(sorted);
        assertEquals(IntStream.rangeClosed(base + 1, base + clients * each).boxed().toList(), sorted,
                "every value returned exactly once: no duplicate, no gap");
    }
}
