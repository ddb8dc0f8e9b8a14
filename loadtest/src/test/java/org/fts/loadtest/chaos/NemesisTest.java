package org.fts.loadtest.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import org.fts.loadtest.chaos.FaultPlan.Action;
import org.fts.loadtest.chaos.FaultPlan.Episode;
import org.fts.loadtest.chaos.FaultPlan.Kind;
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
        assertEquals(EnumSet.allOf(Action.class), actions);
        assertEquals(Set.of(0, 1, 2), victims, "the sequencer r0 included");
        assertTrue(shortIsolation);
        assertTrue(episodes(Kind.KILL, 1, 200).stream().allMatch(e -> e.action() == Action.KILL));
        assertTrue(episodes(Kind.PAUSE, 1, 200).stream().allMatch(e -> e.action() == Action.PAUSE));
        assertTrue(episodes(Kind.PARTITION, 1, 200).stream()
                .allMatch(e -> e.action() == Action.ISOLATE || e.action() == Action.ISOLATE_TWO));
    }

    /** Time that passes only when the nemesis sleeps. */
    private static final class VirtualClock implements Nemesis.Clock {
        long now = 1_000_000_000L;

        @Override
        public long nanos() {
            return now;
        }

        @Override
        public void sleep(long millis) {
            now += TimeUnit.MILLISECONDS.toNanos(millis);
        }
    }

    /**
     * Three replicas: a restarted one serves 5 s later, one back from a long isolation or pause 2 s later.
     * Records each fault with whether every replica served when it began.
     */
    private static final class FakeReplicas implements Nemesis.Target {
        final VirtualClock clock;
        final boolean[] running = {true, true, true};
        final boolean[] paused = new boolean[3];
        final boolean[] isolated = new boolean[3];
        final long[] servesFrom = new long[3];
        final long[] since = new long[3];
        final List<String> faults = new ArrayList<>();
        final List<Boolean> allServed = new ArrayList<>();
        int neverServes = -1;
        /** Until this time, r1 serves only every other second (as a replica answering from a stale view). */
        long flapsUntil;
        long firstKill = -1;

        FakeReplicas(VirtualClock clock) {
            this.clock = clock;
        }

        private void fault(String what, int i) {
            boolean all = IntStream.range(0, 3).allMatch(this::serves);
            faults.add(what + " r" + i);
            allServed.add(all);
            since[i] = clock.now;
        }

        private void back(int i) {
            long away = clock.now - since[i];
            servesFrom[i] = clock.now + (away > TimeUnit.MILLISECONDS.toNanos(FaultPlan.SHORT_MAX_MILLIS) ? 2_000_000_000L : 0);
        }

        @Override
        public int size() {
            return 3;
        }

        @Override
        public void kill(int i) {
            assertTrue(running[i] && !paused[i], "kill r" + i + " while it runs");
            fault("kill", i);
            firstKill = firstKill < 0 ? clock.now : firstKill;
            running[i] = false;
        }

        @Override
        public void restart(int i) {
            assertFalse(running[i], "restart r" + i + " only once it is down");
            running[i] = true;
            servesFrom[i] = clock.now + 5_000_000_000L;
        }

        @Override
        public boolean running(int i) {
            return running[i];
        }

        @Override
        public void pause(int i) {
            assertTrue(running[i] && !paused[i]);
            fault("pause", i);
            paused[i] = true;
        }

        @Override
        public void resume(int i) {
            assertTrue(paused[i]);
            paused[i] = false;
            back(i);
        }

        @Override
        public void isolate(int i) {
            assertTrue(running[i] && !isolated[i]);
            fault("isolate", i);
            isolated[i] = true;
        }

        @Override
        public void heal(int i) {
            assertTrue(isolated[i]);
            isolated[i] = false;
            back(i);
        }

        @Override
        public boolean serves(int i) {
            boolean flapping = i == 1 && clock.now < flapsUntil && (clock.now / 1_000_000_000L) % 2 == 1;
            return i != neverServes && !flapping && running[i] && !paused[i] && !isolated[i] && clock.now >= servesFrom[i];
        }
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
}
