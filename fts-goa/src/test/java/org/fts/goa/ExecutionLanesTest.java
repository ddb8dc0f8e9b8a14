package org.fts.goa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Stage 8's lanes: each object's requests execute in delivery order, and a cut runs with every lane idle,
 * after everything queued before it and before everything queued after it.
 */
class ExecutionLanesTest {
    private ExecutionLanes lanes;

    @AfterEach
    void stop() {
        if (lanes != null) {
            lanes.shutdown();
        }
    }

    @Test
    void oneLaneExecutesInDeliveryOrder() throws InterruptedException {
        lanes = new ExecutionLanes("t1", 1);
        List<Integer> order = new ArrayList<>();
        CountDownLatch done = new CountDownLatch(500);
        for (int i = 0; i < 500; i++) {
            int n = i;
            lanes.execute(key("o" + (i % 7)), () -> {
                synchronized (order) {
                    order.add(n);
                }
                done.countDown();
            });
        }
        assertTrue(done.await(10, TimeUnit.SECONDS));
        for (int i = 0; i < 500; i++) {
            assertEquals(i, order.get(i));
        }
    }

    @Test
    void manyLanesKeepEachObjectsOrderAndCutWithEveryLaneIdle() throws InterruptedException {
        lanes = new ExecutionLanes("t4", 4);
        AtomicInteger running = new AtomicInteger();
        AtomicInteger executed = new AtomicInteger();
        Map<String, List<Integer>> perObject = new HashMap<>();
        List<String> cuts = new ArrayList<>();
        CountDownLatch done = new CountDownLatch(2000 + 3);
        for (int i = 0; i < 2000; i++) {
            String object = "o" + (i % 13);
            int n = i;
            lanes.execute(key(object), () -> {
                running.incrementAndGet();
                try {
                    spin();
                    synchronized (perObject) {
                        perObject.computeIfAbsent(object, o -> new ArrayList<>()).add(n);
                    }
                    executed.incrementAndGet();
                } finally {
                    running.decrementAndGet();
                    done.countDown();
                }
            });
            if (i == 499 || i == 999 || i == 1499) {
                int before = i + 1;
                lanes.atCut(() -> {
                    synchronized (cuts) {
                        cuts.add("running=" + running.get() + " executed=" + executed.get() + "/" + before);
                    }
                    done.countDown();
                });
            }
        }
        assertTrue(done.await(30, TimeUnit.SECONDS), "every task and cut ran");
        assertEquals(List.of("running=0 executed=500/500", "running=0 executed=1000/1000",
                "running=0 executed=1500/1500"), cuts);
        assertEquals(13, perObject.size());
        perObject.forEach((object, seen) -> {
            for (int k = 1; k < seen.size(); k++) {
                assertTrue(seen.get(k - 1) < seen.get(k), object + " executed out of order: " + seen);
            }
        });
    }

    private static ObjectKey key(String id) {
        return new ObjectKey(id.getBytes(StandardCharsets.UTF_8));
    }

    private static void spin() {
        long until = System.nanoTime() + 2_000;
        while (System.nanoTime() < until) {
            Thread.onSpinWait();
        }
    }
}
