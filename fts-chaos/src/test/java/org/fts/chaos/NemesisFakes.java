package org.fts.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

/** Test doubles for the {@link Nemesis}: virtual time and fake replicas. */
final class NemesisFakes {
    private NemesisFakes() {
    }

    /** Time that passes only when the nemesis sleeps. */
    static final class VirtualClock implements NemesisClock {
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
     * Replicas (3 unless told): a restarted one serves 5 s later, one back from a long isolation, pause or cut
     * 2 s later; one with a link cut (all its packets one way dropped) does not serve. Records each fault (a
     * network episode's drops as one) with whether every replica served when it began.
     */
    static final class FakeReplicas implements NemesisTarget {
        final VirtualClock clock;
        final int n;
        final boolean[] running;
        final boolean[] paused;
        final boolean[] isolated;
        final long[] servesFrom;
        final long[] since;
        /** The packet drops in place: percent by direction, 100 for a cut. */
        final Map<FaultPlan.Link, Integer> drops = new HashMap<>();
        final List<Long> restores = new ArrayList<>();
        /** The drop (counted from 1) that fails, or 0. */
        int failingDrop;
        int dropsMade;
        final List<String> faults = new ArrayList<>();
        final List<Boolean> allServed = new ArrayList<>();
        int neverServes = -1;
        /** Until this time, r1 serves only every other second (as a replica answering from a stale view). */
        long flapsUntil;
        long firstKill = -1;
        /** What each damage did: "r<i> since <mark or none>". */
        final List<String> damaged = new ArrayList<>();
        /** When a filled replica stops (its next write fails), or 0; how often each volume grew back. */
        final long[] stopsAt;
        final int[] grown;
        /** Whether a full volume never stops its replica (the load wrote too little). */
        boolean neverFills;

        FakeReplicas(VirtualClock clock) {
            this(clock, 3);
        }

        FakeReplicas(VirtualClock clock, int n) {
            this.clock = clock;
            this.n = n;
            running = new boolean[n];
            Arrays.fill(running, true);
            paused = new boolean[n];
            isolated = new boolean[n];
            servesFrom = new long[n];
            since = new long[n];
            stopsAt = new long[n];
            grown = new int[n];
        }

        private void fault(String what, int i) {
            boolean all = IntStream.range(0, n).allMatch(this::serves);
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
            return n;
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
            if (stopsAt[i] > 0 && clock.now >= stopsAt[i]) {
                running[i] = false;
                stopsAt[i] = 0;
            }
            return running[i];
        }

        @Override
        public DiskDamage.Mark markLog(int i) {
            assertTrue(running[i], "a mark of a running replica's log");
            return new DiskDamage.Mark(java.nio.file.Path.of("r" + i), clock.now);
        }

        @Override
        public String damageLog(int i, DiskDamage.Mark since, int percent, int tear) {
            assertFalse(running[i], "damage r" + i + "'s log only while it is down");
            assertTrue(percent >= 25 && percent <= 75 && tear >= 0 && tear <= 64, percent + " " + tear);
            damaged.add("r" + i + " since " + (since == null ? "none" : since.segment()));
            return "damaged";
        }

        @Override
        public PowerLoss.Result powerLoss(int i, boolean damage, long seed) {
            assertFalse(running[i], "a power loss is played on r" + i + "'s log only while it is down");
            damaged.add("r" + i + " power loss" + (damage ? ", damaged" : ""));
            return new PowerLoss.Result(100 + i, "power loss");
        }

        @Override
        public void fillVolume(int i) {
            assertTrue(running[i], "fill a running replica's volume");
            fault("fill", i);
            if (!neverFills) {
                stopsAt[i] = clock.now + 4_000_000_000L;
            }
        }

        @Override
        public void growVolume(int i) {
            grown[i]++;
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
        public void cut(int from, int to) {
            drop(from, to, 100);
        }

        @Override
        public void lossy(int from, int to, int percent) {
            drop(from, to, percent);
        }

        private void drop(int from, int to, int percent) {
            assertTrue(from != to && from >= 0 && from < n && to >= 0 && to < n, from + "->" + to);
            if (++dropsMade == failingDrop) {
                throw new IllegalStateException("iptables failed");
            }
            if (drops.isEmpty()) {
                fault("drop", from);
            }
            assertEquals(null, drops.put(new FaultPlan.Link(from, to), percent), "each direction once");
        }

        @Override
        public void restoreNet() {
            restores.add(clock.now);
            drops.keySet().stream().flatMap(l -> java.util.stream.Stream.of(l.from(), l.to())).distinct()
                    .forEach(this::back);
            drops.clear();
        }

        private boolean cut(int i) {
            return drops.entrySet().stream().anyMatch(d -> d.getValue() == 100
                    && (d.getKey().from() == i || d.getKey().to() == i));
        }

        @Override
        public boolean serves(int i) {
            boolean flapping = i == 1 && clock.now < flapsUntil && (clock.now / 1_000_000_000L) % 2 == 1;
            return i != neverServes && !flapping && running[i] && !paused[i] && !isolated[i] && !cut(i)
                    && clock.now >= servesFrom[i];
        }
    }
}
