package org.fts.gc;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;

import org.fts.jgroups.JGroupsFaults;
import org.fts.testing.OneOrder;
import org.fts.testing.Recorder.Delivery;
import org.fts.testing.SyncingListener;
import org.fts.process.Waits;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Real JGroups channels (loopback UDP, three members in this JVM, N = 3) under traffic while members are cut
 * off and healed at random (JGroups DISCARD inserted at run time): isolations of 1-6 s, some overlapping, some
 * shorter than failure detection. After the last heal the group must re-form one primary view that delivers
 * again, and no two members may ever have delivered in different orders. The seed is logged; run it again
 * with {@code -Dfts.test.seed=S}, longer with {@code -Dfts.test.seconds=N}.
 */
class JGroupsPartitionHealTest {
    private static final Logger LOG = LoggerFactory.getLogger(JGroupsPartitionHealTest.class);
    private static final Duration REFORM = Duration.ofSeconds(60);
    private final List<GroupChannel> channels = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    private final AtomicBoolean stop = new AtomicBoolean();

    @AfterEach
    void close() throws InterruptedException {
        stop.set(true);
        for (Thread t : threads) {
            t.join(10_000);
        }
        channels.forEach(GroupChannel::close);
    }

    @Test
    void afterRandomIsolationsHealTheGroupReformsOnePrimaryThatDelivers() throws Exception {
        long seed = Long.getLong("fts.test.seed", System.nanoTime());
        int seconds = Integer.getInteger("fts.test.seconds", 25);
        LOG.info("seed {} ({} s of faults)", seed, seconds);
        Random rnd = new Random(seed);
        String group = "heal-" + UUID.randomUUID().toString().substring(0, 8);
        List<SyncingListener> listeners = new ArrayList<>();
        for (String name : List.of("a", "b", "c")) {
            Properties p = new Properties();
            p.setProperty("fts.gc", "jgroups");
            p.setProperty("fts.group.size", "3");
            SyncingListener l = new SyncingListener();
            GroupChannel ch = GroupChannels.create(p, name);
            l.channel = ch;
            channels.add(ch);
            listeners.add(l);
            ch.join(group, l);
        }
        for (SyncingListener l : listeners) {
            l.recorder.awaitView(v -> v.size() == 3, REFORM, "3 members");
        }
        for (int i = 0; i < 3; i++) {
            GroupChannel ch = channels.get(i);
            String name = ch.self().name();
            Thread t = new Thread(() -> {
                for (int k = 0; !stop.get(); k++) {
                    try {
                        ch.abcast((name + ":" + k).getBytes(StandardCharsets.UTF_8));
                        Thread.sleep(5);   // a steady trickle of traffic, not a flood
                    } catch (GroupException | InterruptedException e) {
                        return;
                    }
                }
            }, "traffic-" + name);
            threads.add(t);
            t.start();
        }
        long end = System.nanoTime() + Duration.ofSeconds(seconds).toNanos();
        Set<Integer> isolated = new HashSet<>();
        while (System.nanoTime() < end) {
            int victim = rnd.nextInt(3);
            if (isolated.size() < 2 && !isolated.contains(victim) && rnd.nextInt(3) > 0) {
                LOG.info("isolate {}", channels.get(victim).self());
                JGroupsFaults.isolate(channels.get(victim));
                isolated.add(victim);
            } else if (!isolated.isEmpty()) {
                int healed = isolated.iterator().next();
                LOG.info("heal {}", channels.get(healed).self());
                JGroupsFaults.heal(channels.get(healed));
                isolated.remove(healed);
            }
            Thread.sleep(1000 + rnd.nextInt(5000));
        }
        for (int i : isolated) {
            JGroupsFaults.heal(channels.get(i));
        }
        long healedAt = System.nanoTime();
        LOG.info("last heal");
        // One view of all three with its epoch open everywhere, then a round of broadcasts, one per member,
        // that every member delivers. A view change may still come (a failure detector that fires late): then a
        // member may rightly miss a round (a gap), and the next round is tried.
        long deadline = healedAt + REFORM.toNanos();
        long reformed = 0;
        boolean served = false;
        for (int round = 0; !served; round++) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                fail("seed " + seed + ": no round of broadcasts delivered by all within " + REFORM + " of the last heal; "
                        + channels + " epochs " + listeners.stream().map(l -> l.recorder.lastEpoch()).toList()
                        + threadDump());
            }
            Waits.await(() -> {
                View v0 = channels.get(0).view();
                return v0.size() == 3 && channels.stream().allMatch(c -> c.view().id() == v0.id())
                        && listeners.stream().allMatch(l -> l.recorder.lastEpoch() != null
                        && l.recorder.lastEpoch().id() == v0.id());
            }, Duration.ofNanos(left), () -> "one primary view of three: views "
                    + channels.stream().map(GroupChannel::view).toList() + ", epochs "
                    + listeners.stream().map(l -> l.recorder.lastEpoch()).toList());
            if (reformed == 0) {
                reformed = System.nanoTime();
                stop.set(true);
                for (Thread t : threads) {
                    t.join(10_000);
                }
            }
            String tag = "final-" + round + "-";
            for (GroupChannel ch : channels) {
                ch.abcast((tag + ch.self()).getBytes(StandardCharsets.UTF_8));
            }
            served = true;
            for (SyncingListener l : listeners) {
                try {
                    l.recorder.awaitState(r -> r.deliveredUnsafe().stream().filter(d -> d.text().startsWith(tag)).count()
                            == 3, Duration.ofSeconds(5), () -> "round " + tag);
                } catch (AssertionError notYet) {
                    LOG.info("seed {}: round {} not delivered everywhere ({}); epochs {}", seed, tag, channels,
                            listeners.stream().map(x -> x.recorder.lastEpoch()).toList());
                    served = false;
                    break;
                }
            }
        }
        LOG.info("seed {}: re-formed {} ms after the last heal, delivering again {} ms after it", seed,
                (reformed - healedAt) / 1_000_000, (System.nanoTime() - healedAt) / 1_000_000);
        assertOneOrder(listeners.stream().map(l -> l.recorder.delivered()).toList(), seed);
    }

    private static String threadDump() {
        StringBuilder dump = new StringBuilder("\nthreads:\n");
        Thread.getAllStackTraces().forEach((t, st) -> {
            dump.append('"').append(t.getName()).append("\" ").append(t.getState()).append('\n');
            for (StackTraceElement el : st) {
                dump.append("    at ").append(el).append('\n');
            }
        });
        return dump.toString();
    }
    private static void assertOneOrder(List<List<Delivery>> seqs, long seed) {
        OneOrder.assertOneOrder(seqs, "seed " + seed);
        assertTrue(seqs.stream().allMatch(s -> !s.isEmpty()));
    }
}
