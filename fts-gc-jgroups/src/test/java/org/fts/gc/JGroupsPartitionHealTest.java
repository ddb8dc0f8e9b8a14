package org.fts.gc;

import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.HashSet;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.fts.jgroups.JGroupsFaults;
import org.fts.testing.TrafficGroup;
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
    private TrafficGroup group;

    @AfterEach
    void close() {
        if (group != null) {
            group.close();
        }
    }

    @Test
    void afterRandomIsolationsHealTheGroupReformsOnePrimaryThatDelivers() throws Exception {
        long seed = Long.getLong("fts.test.seed", System.nanoTime());
        int seconds = Integer.getInteger("fts.test.seconds", 25);
        LOG.info("seed {} ({} s of faults)", seed, seconds);
        Random rnd = new Random(seed);
        Properties p = new Properties();
        p.setProperty("fts.gc", "jgroups");
        group = TrafficGroup.start(p, "heal", REFORM, "a", "b", "c").withTraffic(REFORM);
        long end = System.nanoTime() + Duration.ofSeconds(seconds).toNanos();
        Set<Integer> isolated = new HashSet<>();
        while (System.nanoTime() < end) {
            int victim = rnd.nextInt(3);
            if (isolated.size() < 2 && !isolated.contains(victim) && rnd.nextInt(3) > 0) {
                LOG.info("isolate {}", group.member(victim).self());
                JGroupsFaults.isolate(group.member(victim));
                isolated.add(victim);
            } else if (!isolated.isEmpty()) {
                int healed = isolated.iterator().next();
                LOG.info("heal {}", group.member(healed).self());
                JGroupsFaults.heal(group.member(healed));
                isolated.remove(healed);
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1000 + rnd.nextInt(5000)));   // the schedule's step
        }
        for (int i : isolated) {
            JGroupsFaults.heal(group.member(i));
        }
        long healedAt = System.nanoTime();
        LOG.info("last heal");
        // One view of all three with its epoch open everywhere, then a round of broadcasts, one per member,
        // that every member delivers. A view change may still come (a failure detector that fires late): then a
        // member may rightly miss a round (a gap), and the next round is tried.
        long deadline = healedAt + REFORM.toNanos();
        long reformed = 0;
        for (int round = 0; ; round++) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                fail("seed " + seed + ": no round of broadcasts delivered by all within " + REFORM + " of the last heal; "
                        + group.views() + " epochs " + group.recorders.stream().map(r -> r.lastEpoch()).toList()
                        + threadDump());
            }
            group.awaitOnePrimaryView(Duration.ofNanos(left), "seed " + seed);
            if (reformed == 0) {
                reformed = System.nanoTime();
                group.stopTraffic();
            }
            if (group.round("final-" + round + "-", Duration.ofSeconds(5))) {
                break;
            }
            LOG.info("seed {}: round {} not delivered everywhere ({}); epochs {}", seed, round, group.views(),
                    group.recorders.stream().map(r -> r.lastEpoch()).toList());
        }
        LOG.info("seed {}: re-formed {} ms after the last heal, delivering again {} ms after it", seed,
                (reformed - healedAt) / 1_000_000, (System.nanoTime() - healedAt) / 1_000_000);
        group.assertOneOrder("seed " + seed);
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
}
