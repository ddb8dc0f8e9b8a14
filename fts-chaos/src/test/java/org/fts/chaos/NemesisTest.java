package org.fts.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import org.fts.chaos.FaultPlan.Action;
import org.fts.chaos.FaultPlan.Episode;
import org.fts.chaos.FaultPlan.Kind;
import org.fts.chaos.FaultPlan.Link;
import org.fts.chaos.NemesisFakes.FakeReplicas;
import org.fts.chaos.NemesisFakes.VirtualClock;
import org.junit.jupiter.api.Test;

/** Fault schedules from a seed, and the nemesis playing them in virtual time against fake replicas. */
class NemesisTest {

    private static List<Episode> episodes(Kind kind, long seed, int count) {
        FaultPlan plan = new FaultPlan(kind, seed, 3);
        return IntStream.range(0, count).mapToObj(i -> plan.next()).toList();
    }

    @Test
    void theSameSeedGivesTheSameSchedule() {
        assertEquals(episodes(Kind.MIXED, 42, 50), episodes(Kind.MIXED, 42, 50));
        assertNotEquals(episodes(Kind.MIXED, 42, 50), episodes(Kind.MIXED, 43, 50));
    }

    @Test
    void mixedDrawsPowerLossesOnlyWhenTheReplicasLog() {
        FaultPlan durable = new FaultPlan(Kind.MIXED, 42, 3, true);
        List<FaultPlan.Action> logged = IntStream.range(0, 60).mapToObj(i -> durable.next().action()).toList();
        assertTrue(logged.contains(FaultPlan.Action.KILL_ALL), "a power loss among 60 episodes: " + logged);
        assertTrue(episodes(Kind.MIXED, 42, 60).stream().noneMatch(e -> e.action() == FaultPlan.Action.KILL_ALL),
                "never without a log");
    }

    @Test
    void schedulesStayWithinTheirRangesAndCoverEveryShape() {
        List<Episode> mixed = episodes(Kind.MIXED, 7, 2000);
        Set<Action> actions = EnumSet.noneOf(Action.class);
        Set<Integer> victims = new HashSet<>();
        boolean shortIsolation = false;
        for (Episode e : mixed) {
            actions.add(e.action());
            victims.add(e.replica());
            assertTrue(e.gapMillis() >= 2_000 && e.gapMillis() <= 5_000, e::toString);
            switch (e.action()) {
                case KILL -> assertTrue(e.holdMillis() >= 500 && e.holdMillis() <= 3_000, e::toString);
                case PAUSE -> assertTrue(e.holdMillis() >= 1_000 && e.holdMillis() <= 7_000, e::toString);
                case ISOLATE -> {
                    assertTrue(e.holdMillis() >= 1_000 && e.holdMillis() <= 9_000, e::toString);
                    shortIsolation |= e.isShort();
                }
                case ISOLATE_TWO -> {
                    assertNotEquals(e.replica(), e.second(), e::toString);
                    assertTrue(e.secondAfterMillis() + e.secondHoldMillis() < e.holdMillis(),
                            () -> "the second isolation ends within the first: " + e);
                }
                default -> throw new AssertionError(e);
            }
        }
        assertEquals(EnumSet.of(Action.KILL, Action.PAUSE, Action.ISOLATE, Action.ISOLATE_TWO), actions);
        assertEquals(Set.of(0, 1, 2), victims, "the sequencer r0 included");
        assertTrue(shortIsolation);
        assertTrue(episodes(Kind.KILL, 1, 200).stream().allMatch(e -> e.action() == Action.KILL));
        assertTrue(episodes(Kind.PAUSE, 1, 200).stream().allMatch(e -> e.action() == Action.PAUSE));
        assertTrue(episodes(Kind.PARTITION, 1, 200).stream()
                .allMatch(e -> e.action() == Action.ISOLATE || e.action() == Action.ISOLATE_TWO));
    }

    @Test
    void aMixedScheduleKillsOnlyWhenEveryReplicaServesAndEndsEveryFault() {
        for (long seed = 1; seed <= 20; seed++) {
            VirtualClock clock = new VirtualClock();
            FakeReplicas replicas = new FakeReplicas(clock);
            FaultLog log = new FaultLog(clock.now, null);
            Nemesis nemesis = new Nemesis(new FaultPlan(Kind.MIXED, seed, 3), replicas, log, clock);
            long end = clock.now + TimeUnit.SECONDS.toNanos(300);
            nemesis.run(end);

            for (int i = 0; i < 3; i++) {
                assertTrue(replicas.running[i] && !replicas.paused[i] && !replicas.isolated[i],
                        "r" + i + " left faulty: " + log.lines());
            }
            assertTrue(nemesis.lastFaultEnd() >= end - TimeUnit.SECONDS.toNanos(20) && nemesis.lastFaultEnd() <= clock.now,
                    "the last fault ended near the end of the run");
            assertEquals(replicas.faults.size(), nemesis.faults());
            assertTrue(nemesis.faults() > 20, "faults in 300 s: " + nemesis.faults());
            // each played episode's first fault: those that may change views began with every replica serving
            int f = 0;
            for (Episode e : nemesis.played()) {
                if (e.needsEveryReplicaServing()) {
                    assertTrue(replicas.allServed.get(f), "began with every replica serving: " + e + " " + log.lines());
                }
                f += e.action() == Action.ISOLATE_TWO ? 2 : 1;
                if (f > replicas.faults.size()) {
                    break;   // the run ended inside the last episode
                }
            }
            assertEquals(0, nemesis.unexpectedExits());
        }
    }

    @Test
    void aCrashIsSkippedWhileAReplicaDoesNotServe() {
        VirtualClock clock = new VirtualClock();
        FakeReplicas replicas = new FakeReplicas(clock);
        replicas.neverServes = 1;
        FaultLog log = new FaultLog(clock.now, null);
        Nemesis nemesis = new Nemesis(new FaultPlan(Kind.KILL, 3, 3), replicas, log, clock);
        nemesis.run(clock.now + TimeUnit.SECONDS.toNanos(200));
        assertEquals(0, nemesis.faults(), log.lines()::toString);
        assertTrue(log.lines().stream().anyMatch(l -> l.contains("skipped, not every replica served")), log.lines()::toString);
    }

    @Test
    void aCrashWaitsUntilEveryReplicaHasServedForAWhile() {
        VirtualClock clock = new VirtualClock();
        FakeReplicas replicas = new FakeReplicas(clock);
        long start = clock.now;
        replicas.flapsUntil = start + TimeUnit.SECONDS.toNanos(30);   // r1 last refuses in the second before
        new Nemesis(new FaultPlan(Kind.KILL, 3, 3), replicas, new FaultLog(start, null), clock)
                .run(start + TimeUnit.SECONDS.toNanos(60));
        long lastRefusal = replicas.flapsUntil - TimeUnit.SECONDS.toNanos(1);
        assertTrue(replicas.firstKill >= lastRefusal + TimeUnit.MILLISECONDS.toNanos(Nemesis.SETTLE_MILLIS),
                "first kill at " + (replicas.firstKill - start) / 1e9 + " s");
    }

    @Test
    void theAdmissionProbesTellWhenEveryReplicaServedAgainAfterTheLastFault() {
        int seen = 0;
        for (long seed = 1; seed <= 20; seed++) {
            VirtualClock clock = new VirtualClock();
            FakeReplicas replicas = new FakeReplicas(clock);   // a restarted replica serves 5 s after its start
            Nemesis nemesis = new Nemesis(new FaultPlan(Kind.KILL, seed, 3), replicas, new FaultLog(clock.now, null),
                    clock);
            nemesis.run(clock.now + TimeUnit.SECONDS.toNanos(60));
            if (nemesis.servingSince() >= 0) {
                seen++;
                double after = (nemesis.servingSince() - nemesis.lastFaultEnd()) / 1e9;
                assertTrue(after >= 5.0 && after <= 5.3, "seed " + seed + ": every replica served " + after
                        + " s after the last restart, by the admission probes (every 250 ms)");
            }
        }
        assertTrue(seen > 0, "some run ended while the admission probes saw every replica serve");
    }

    @Test
    void aReplicaThatExitedByItselfIsCountedAndStartedAgain() {
        VirtualClock clock = new VirtualClock();
        FakeReplicas replicas = new FakeReplicas(clock);
        replicas.running[2] = false;   // it died without the nemesis
        FaultLog log = new FaultLog(clock.now, null);
        Nemesis nemesis = new Nemesis(new FaultPlan(Kind.KILL, 3, 3), replicas, log, clock);
        nemesis.run(clock.now + TimeUnit.SECONDS.toNanos(30));
        assertTrue(replicas.running[2]);
        assertEquals(1, nemesis.unexpectedExits(), log.lines()::toString);
    }

    @Test
    void aRunShorterThanTheFirstGapInjectsNothingAndEndsAtOnce() {
        VirtualClock clock = new VirtualClock();
        FakeReplicas replicas = new FakeReplicas(clock);
        Nemesis nemesis = new Nemesis(new FaultPlan(Kind.MIXED, 5, 3), replicas, new FaultLog(clock.now, null), clock);
        long end = clock.now + TimeUnit.MILLISECONDS.toNanos(1_500);
        nemesis.run(end);
        assertEquals(0, nemesis.faults());
        assertEquals(end, nemesis.lastFaultEnd());
    }

    @Test
    void networkSchedulesStayWithinTheirRangesAndCoverEveryShape() {
        for (Kind k : List.of(Kind.NETPART, Kind.BRIDGE, Kind.ONEWAY, Kind.LOSSY, Kind.NETMIXED)) {
            assertTrue(k.needsNetFilter(), k::toString);
            assertEquals(episodes(k, 42, 50), episodes(k, 42, 50), "the same seed, the same schedule");
            assertNotEquals(episodes(k, 42, 50), episodes(k, 43, 50));
        }
        assertFalse(Kind.MIXED.needsNetFilter() || Kind.PARTITION.needsNetFilter());
        Set<Action> actions = EnumSet.noneOf(Action.class);
        Set<Integer> percents = new HashSet<>();
        Set<List<Integer>> bridges = new HashSet<>();
        Set<String> shapes = new HashSet<>();
        for (Episode e : episodes(Kind.NETMIXED, 7, 3000)) {
            actions.add(e.action());
            List<Link> links = e.links(3);
            assertTrue(links.stream().allMatch(l -> l.from() != l.to()), e::toString);
            assertEquals(links.size(), new HashSet<>(links).size(), e::toString);
            switch (e.action()) {
                case KILL, PAUSE -> assertEquals(List.of(), links);
                case CUT_OFF -> {
                    assertTrue(e.holdMillis() >= 3_000 && e.holdMillis() <= 9_000, e::toString);
                    assertEquals(4, links.size(), "both ways to both others: " + e);
                    assertTrue(links.stream().allMatch(l -> l.from() == e.replica() || l.to() == e.replica()));
                }
                case BRIDGE -> {
                    assertTrue(e.holdMillis() >= 4_000 && e.holdMillis() <= 9_000, e::toString);
                    assertEquals(Set.of(new Link(e.replica(), e.second()), new Link(e.second(), e.replica())),
                            Set.copyOf(links));
                    bridges.add(List.of(Math.min(e.replica(), e.second()), Math.max(e.replica(), e.second())));
                }
                case ONEWAY -> {
                    assertTrue(links.stream().allMatch(l -> l.from() == e.replica()), "one way only: " + e);
                    assertEquals(e.second() < 0 ? 2 : 1, links.size(), e::toString);
                    shapes.add("oneway" + (e.second() < 0 ? " to all" : " to one"));
                }
                case LOSSY -> {
                    percents.add(e.lossPercent());
                    assertEquals(e.second() < 0 ? 4 : 2, links.size(), e::toString);
                    assertTrue(e.toString().contains(e.lossPercent() + "%"), "the log shows the share: " + e);
                    shapes.add("lossy" + (e.second() < 0 ? " to all" : " to one"));
                }
                default -> throw new AssertionError("netmixed has no DISCARD isolations: " + e);
            }
        }
        assertEquals(EnumSet.of(Action.KILL, Action.PAUSE, Action.CUT_OFF, Action.BRIDGE, Action.ONEWAY, Action.LOSSY),
                actions);
        assertEquals(Set.of(5, 20, 50), percents);
        assertEquals(Set.of(List.of(0, 1), List.of(0, 2), List.of(1, 2)), bridges, "the pairs vary");
        assertEquals(Set.of("oneway to one", "oneway to all", "lossy to one", "lossy to all"), shapes);
        assertEquals(8, episodes(Kind.NETPART, 1, 1).get(0).links(5).size(), "cut off from 4 others, both ways");
        FaultPlan five = new FaultPlan(Kind.BRIDGE, 3, 5);
        assertEquals(Set.of(0, 1, 2, 3, 4), IntStream.range(0, 500).mapToObj(i -> five.next())
                .flatMap(e -> java.util.stream.Stream.of(e.replica(), e.second())).collect(Collectors.toSet()));
    }

    @Test
    void aNetMixedScheduleKillsOnlyWhenEveryReplicaServesAndEndsEveryDrop() {
        for (int n : List.of(3, 5)) {
            for (long seed = 1; seed <= 10; seed++) {
                VirtualClock clock = new VirtualClock();
                FakeReplicas replicas = new FakeReplicas(clock, n);
                FaultLog log = new FaultLog(clock.now, null);
                Nemesis nemesis = new Nemesis(new FaultPlan(Kind.NETMIXED, seed, n), replicas, log, clock);
                long end = clock.now + TimeUnit.SECONDS.toNanos(300);
                nemesis.run(end);

                assertEquals(Map.of(), replicas.drops, "every drop removed: " + log.lines());
                for (int i = 0; i < n; i++) {
                    assertTrue(replicas.running[i] && !replicas.paused[i], "r" + i + " left faulty: " + log.lines());
                }
                assertEquals(replicas.faults.size(), nemesis.faults());
                assertTrue(nemesis.faults() > 20, "faults in 300 s: " + nemesis.faults());
                long network = nemesis.played().stream().filter(e -> e.action().isNetwork()).count();
                assertTrue(network > 10 && replicas.restores.size() >= network, log.lines()::toString);
                int f = 0;
                for (Episode e : nemesis.played()) {
                    if (e.needsEveryReplicaServing() && f < replicas.faults.size()) {
                        assertTrue(replicas.allServed.get(f), "began with every replica serving: " + e);
                    }
                    f++;
                }
                assertTrue(log.lines().stream().anyMatch(l -> l.matches(".*drop (5|20|50)% of r\\d.*")),
                        log.lines()::toString);
            }
        }
    }

    @Test
    void aNetworkFaultEndsAtTheDeadline() {
        VirtualClock clock = new VirtualClock();
        FakeReplicas replicas = new FakeReplicas(clock);
        Episode first = new FaultPlan(Kind.NETPART, 11, 3).next();
        long end = clock.now + TimeUnit.MILLISECONDS.toNanos(first.gapMillis() + 1_000);   // 1 s into a 3-9 s cut
        Nemesis nemesis = new Nemesis(new FaultPlan(Kind.NETPART, 11, 3), replicas, new FaultLog(clock.now, null),
                clock);
        nemesis.run(end);
        assertEquals(List.of(first), nemesis.played());
        assertEquals(1, nemesis.faults());
        assertEquals(List.of(end), replicas.restores, "the drops removed at the deadline, once");
        assertEquals(Map.of(), replicas.drops);
        assertEquals(end, nemesis.lastFaultEnd());
    }

    @Test
    void dropsThatFailHalfwayAreRemovedAndTheScheduleGoesOn() {
        VirtualClock clock = new VirtualClock();
        FakeReplicas replicas = new FakeReplicas(clock);
        replicas.failingDrop = 2;   // the first episode's second direction
        FaultLog log = new FaultLog(clock.now, null);
        Nemesis nemesis = new Nemesis(new FaultPlan(Kind.NETPART, 5, 3), replicas, log, clock);
        nemesis.run(clock.now + TimeUnit.SECONDS.toNanos(60));
        assertTrue(log.lines().stream().anyMatch(l -> l.contains("FAILED: java.lang.IllegalStateException: iptables")),
                log.lines()::toString);
        assertEquals(Map.of(), replicas.drops);
        assertEquals(nemesis.played().size(), replicas.restores.size(),
                "every episode's drops removed, the failed one's too");
        assertEquals(nemesis.played().size() - 1, nemesis.faults(), "the failed one is not counted");
    }

    @Test
    void corruptKillsDamagesTheStoppedReplicasLogAndRestartsIt() {
        VirtualClock clock = new VirtualClock();
        FakeReplicas replicas = new FakeReplicas(clock);
        FaultLog log = new FaultLog(clock.now, null);
        Nemesis nemesis = new Nemesis(new FaultPlan(Kind.CORRUPT, 5, 3, true), replicas, log, clock);
        nemesis.run(clock.now + TimeUnit.SECONDS.toNanos(120));
        assertTrue(nemesis.faults() > 2, log.lines()::toString);
        assertEquals(nemesis.faults(), replicas.damaged.size(), "every kill damages the log: " + log.lines());
        assertTrue(replicas.damaged.stream().allMatch(d -> d.endsWith("since none")), replicas.damaged::toString);
        assertTrue(replicas.allServed.stream().allMatch(b -> b), "each only while every replica served");
        for (int i = 0; i < 3; i++) {
            assertTrue(replicas.running[i], "r" + i + " left down: " + log.lines());
        }
    }

    @Test
    void ctrlDamagesWhatTheTwoOthersLoggedWithoutTheFirstAndRestartsTheLastOneAfter() {
        VirtualClock clock = new VirtualClock();
        FakeReplicas replicas = new FakeReplicas(clock);
        FaultLog log = new FaultLog(clock.now, null);
        FaultPlan plan = new FaultPlan(Kind.CTRL, 9, 3, true);
        Episode first = new FaultPlan(Kind.CTRL, 9, 3, true).next();
        Nemesis nemesis = new Nemesis(plan, replicas, log, clock);
        nemesis.run(clock.now + TimeUnit.SECONDS.toNanos(40));
        int c = first.replica();
        int a = first.second();
        int b = first.third();
        assertTrue(java.util.Set.of(a, b, c).size() == 3, first::toString);
        assertEquals(List.of("kill r" + c, "kill r" + a, "kill r" + b), replicas.faults.subList(0, 3));
        assertEquals("r" + a + " since r" + a, replicas.damaged.get(0), "A's log, since its mark");
        List<String> lines = log.lines();
        int restartA = indexOf(lines, "restart r" + a);
        int restartC = indexOf(lines, "restart r" + c);
        int restartB = indexOf(lines, "restart r" + b);
        int verdict = indexOf(lines, " without r" + b + ": ");
        assertTrue(restartA < verdict && restartC < verdict && verdict < restartB, lines::toString);
        for (int i = 0; i < 3; i++) {
            assertTrue(replicas.running[i], "r" + i + " left down: " + lines);
        }
    }

    /**
     * A power loss: 2 or 3 replicas killed at once, each log played a power loss on (the drawn one damaged), and the one
     * that synced furthest among the others (the fake's r_i synced to 100 + i), if that is as far as the damaged one,
     * restarted last, after the rest; if none is, nobody holds the damaged batch intact, and all restart together.
     */
    @Test
    void powerlossPlaysOnEveryLogItKilledAndRestartsTheIntactHolderLast() {
        for (long seed = 1; seed <= 6; seed++) {
            VirtualClock clock = new VirtualClock();
            FakeReplicas replicas = new FakeReplicas(clock);
            FaultLog log = new FaultLog(clock.now, null);
            Episode first = new FaultPlan(Kind.POWERLOSS, seed, 3, true).next();
            Nemesis nemesis = new Nemesis(new FaultPlan(Kind.POWERLOSS, seed, 3, true), replicas, log, clock);
            nemesis.run(clock.now + TimeUnit.SECONDS.toNanos(20));
            int damaged = first.replica();
            List<Integer> victims = first.lossPercent() == 3 ? List.of(0, 1, 2)
                    : java.util.stream.Stream.of(damaged, first.second()).sorted().toList();
            assertEquals(victims.stream().map(v -> "kill r" + v).toList(),
                    replicas.faults.subList(0, victims.size()), first::toString);
            assertTrue(replicas.damaged.contains("r" + damaged + " power loss, damaged"), replicas.damaged::toString);
            int holder = victims.stream().filter(v -> v != damaged).max(Integer::compare).orElseThrow();
            List<String> all = log.lines();
            List<String> lines = all.subList(0, (int) java.util.stream.IntStream.range(1, all.size())
                    .filter(i -> all.get(i).contains("episode:")).findFirst().orElse(all.size()));   // the first one
            if (holder < damaged) {
                assertTrue(lines.stream().noneMatch(l -> l.contains("batch synced last intact (")), lines::toString);
                continue;
            }
            int last = indexOf(lines, "restart r" + holder);
            for (int v : victims) {
                if (v != holder) {
                    assertTrue(indexOf(lines, "restart r" + v) < last, lines::toString);
                }
            }
            assertTrue(indexOf(lines, "r" + holder + " holds r" + damaged + "'s batch synced last intact") < last,
                    lines::toString);
            for (int i = 0; i < 3; i++) {
                assertTrue(replicas.running[i], "r" + i + " left down: " + all);
            }
        }
    }

    @Test
    void diskfullWaitsForTheReplicaToStopGrowsItsVolumeAndRestartsIt() {
        VirtualClock clock = new VirtualClock();
        FakeReplicas replicas = new FakeReplicas(clock);
        FaultLog log = new FaultLog(clock.now, null);
        Nemesis nemesis = new Nemesis(new FaultPlan(Kind.DISKFULL, 3, 3, true), replicas, log, clock);
        nemesis.run(clock.now + TimeUnit.SECONDS.toNanos(60));
        assertTrue(nemesis.faults() >= 2, log.lines()::toString);
        assertEquals(0, nemesis.unexpectedExits(), "a replica stopped by its full volume is the fault's doing");
        assertEquals(nemesis.faults(), java.util.Arrays.stream(replicas.grown).sum(), log.lines()::toString);
        assertTrue(log.lines().stream().anyMatch(l -> l.contains("stopped: its log volume is full")),
                log.lines()::toString);
        for (int i = 0; i < 3; i++) {
            assertTrue(replicas.running[i], "r" + i + " left down: " + log.lines());
        }

        // a volume that does not fill within the episode grows back all the same; the replica ran on
        FakeReplicas steady = new FakeReplicas(new VirtualClock());
        steady.neverFills = true;
        FaultLog quiet = new FaultLog(steady.clock.now, null);
        new Nemesis(new FaultPlan(Kind.DISKFULL, 3, 3, true), steady, quiet, steady.clock)
                .run(steady.clock.now + TimeUnit.SECONDS.toNanos(80));
        assertTrue(quiet.lines().stream().anyMatch(l -> l.contains("still runs: its log volume did not fill")),
                quiet.lines()::toString);
        assertTrue(java.util.Arrays.stream(steady.grown).sum() >= 1, quiet.lines()::toString);
    }

    @Test
    void theDurableMixesDrawDamagedLogsAndNetmixedAFullDisk() {
        Set<Action> mixed = EnumSet.noneOf(Action.class);
        Set<Action> netmixed = EnumSet.noneOf(Action.class);
        FaultPlan m = new FaultPlan(Kind.MIXED, 11, 3, true);
        FaultPlan n = new FaultPlan(Kind.NETMIXED, 11, 3, true);
        for (int i = 0; i < 200; i++) {
            mixed.add(m.next().action());
            netmixed.add(n.next().action());
        }
        assertTrue(mixed.containsAll(EnumSet.of(Action.CORRUPT, Action.CTRL)), mixed::toString);
        assertTrue(netmixed.containsAll(EnumSet.of(Action.CORRUPT, Action.CTRL, Action.DISK_FULL)), netmixed::toString);
        assertTrue(episodes(Kind.NETMIXED, 11, 200).stream().noneMatch(e -> e.action() == Action.CORRUPT
                || e.action() == Action.DISK_FULL), "never without a log");
    }

    private static int indexOf(List<String> lines, String part) {
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).contains(part)) {
                return i;
            }
        }
        throw new AssertionError("no line with '" + part + "' in " + lines);
    }
}
