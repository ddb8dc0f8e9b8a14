package org.fts.goa;

import org.fts.goa.intake.ObjectKey;
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

import org.fts.gc.GroupChannel;
import org.fts.gc.GroupConfig;
import org.fts.gc.MemberId;
import org.fts.gc.local.LocalNetwork;
import org.fts.testing.Recorder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Stage 8's lanes: each object's requests execute in delivery order, and a cut runs with every lane idle,
 * after everything queued before it and before everything queued after it. One lane is the channel's delivery
 * thread (an in-JVM channel here): what is delivered there executes there at once.
 */
class ExecutionLanesTest {
    private ExecutionLanes lanes;
    private GroupChannel channel;

    @AfterEach
    void stop() {
        if (lanes != null) {
            lanes.shutdown();
        }
        if (channel != null) {
            channel.close();
        }
    }

    @Test
    void oneLaneIsTheDeliveryThreadAndExecutesInOrder() throws InterruptedException {
        List<String> order = new ArrayList<>();
        List<Boolean> onDeliveryThread = new ArrayList<>();
        CountDownLatch done = new CountDownLatch(501);
        channel = new LocalNetwork().channel(new MemberId("a"), new GroupConfig(0, true));
        // A delivery executes at once on the delivery thread: before the work queued there after it.
        channel.join("lanes", new Recorder((sender, text) -> lanes.execute(key("x"), () -> {
            order.add(text);
            done.countDown();
        })));
        lanes = new ExecutionLanes("t1", 1, channel, false);
        for (int i = 0; i < 250; i++) {
            int n = i;
            lanes.execute(key("o" + (i % 7)), () -> {
                order.add("task-" + n);
                onDeliveryThread.add(channel.isDeliveryThread());
                done.countDown();
            });
        }
        channel.abcast("delivered".getBytes(StandardCharsets.UTF_8));
        for (int i = 250; i < 500; i++) {
            int n = i;
            lanes.execute(key("o" + (i % 7)), () -> {
                order.add("task-" + n);
                onDeliveryThread.add(channel.isDeliveryThread());
                done.countDown();
            });
        }
        assertTrue(done.await(10, TimeUnit.SECONDS));
        List<String> tasks = order.stream().filter(t -> t.startsWith("task-")).toList();
        for (int i = 0; i < 500; i++) {
            assertEquals("task-" + i, tasks.get(i), "tasks run in the order queued");
        }
        assertTrue(order.indexOf("delivered") > order.indexOf("task-249"), "the delivery after what was queued before");
        assertEquals(List.of(true), onDeliveryThread.stream().distinct().toList(), "all on the delivery thread");
        CountDownLatch cut = new CountDownLatch(1);
        lanes.atCut(cut::countDown);
        assertTrue(cut.await(10, TimeUnit.SECONDS), "a cut from another thread runs there too");
    }

    @Test
    void manyLanesKeepEachObjectsOrderAndCutWithEveryLaneIdle() throws InterruptedException {
        lanes = new ExecutionLanes("t4", 4, null, false);
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
