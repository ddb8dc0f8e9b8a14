package org.fts.loadtest.chaos;

import java.util.Locale;
import java.util.Random;

/**
 * The fault schedule of a run: an endless sequence of episodes drawn from {@code java.util.Random(seed)}, so
 * the same seed gives the same faults in the same order on the same replicas with the same durations (how
 * many of them fit in the run, and the clients' timing, vary). Each episode waits a gap of 2-5 s, then:
 * <ul>
 *   <li>{@code kill}: SIGKILL a replica, restart it 0.5-3 s later;</li>
 *   <li>{@code pause}: SIGSTOP a replica for 1-7 s, then SIGCONT;</li>
 *   <li>{@code partition}: isolate a replica for 3-9 s; or briefly, 1-3 s (below failure detection, about
 *       5.5 s: the others may exclude it while it still believes in its view); or overlapping: a replica for
 *       6-9 s and, 1-3 s into it, a second one for up to the rest of the first, so that every replica is alone
 *       and the last primary view's members all go through minority views.</li>
 * </ul>
 * {@code mixed} draws each episode from all three. Replicas are drawn uniformly, the sequencer r0 included.
 */
public final class FaultPlan {
    /** The nemeses. */
    public enum Kind {
        KILL, PAUSE, PARTITION, MIXED;

        public static Kind parse(String s) {
            try {
                return valueOf(s.toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("unknown nemesis '" + s + "' (kill, pause, partition, mixed)");
            }
        }

        @Override
        public String toString() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** What an episode does. */
    public enum Action { KILL, PAUSE, ISOLATE, ISOLATE_TWO }

    /** Longest fault that stays below failure detection (FD_ALL3 6 s + VERIFY_SUSPECT2 0.25 s), with margin. */
    public static final long SHORT_MAX_MILLIS = 3_000;

    /**
     * One episode: wait {@code gapMillis}, then apply {@code action} to {@code replica} for {@code holdMillis}
     * (for a kill: the delay before the restart); for ISOLATE_TWO also {@code second}, isolated
     * {@code secondAfterMillis} into the first isolation for {@code secondHoldMillis}.
     */
    public record Episode(long gapMillis, Action action, int replica, long holdMillis, int second,
                          long secondAfterMillis, long secondHoldMillis) {
        /**
         * Whether it starts only when every replica serves: a crash. A replica restarted after a crash has lost
         * what it held, and with three replicas, two without their history at once is beyond the fault model
         * (the group then waits rather than risk losing acknowledged requests: docs/primary-view.md). Pauses and
         * partitions lose nothing, and start whenever the schedule says.
         */
        public boolean needsEveryReplicaServing() {
            return action == Action.KILL;
        }

        /** Whether the fault stays below failure detection (the others may not notice it). */
        public boolean isShort() {
            return holdMillis <= SHORT_MAX_MILLIS;
        }

        @Override
        public String toString() {
            return switch (action) {
                case KILL -> String.format(Locale.ROOT, "kill -9 r%d, restart after %.1f s", replica, holdMillis / 1e3);
                case PAUSE -> String.format(Locale.ROOT, "pause r%d for %.1f s", replica, holdMillis / 1e3);
                case ISOLATE -> String.format(Locale.ROOT, "isolate r%d for %.1f s%s", replica, holdMillis / 1e3,
                        isShort() ? " (short)" : "");
                case ISOLATE_TWO -> String.format(Locale.ROOT, "isolate r%d for %.1f s and, %.1f s in, r%d for %.1f s"
                        + " (every replica alone)", replica, holdMillis / 1e3, secondAfterMillis / 1e3, second,
                        secondHoldMillis / 1e3);
            };
        }
    }

    private final Kind kind;
    private final int replicas;
    private final Random random;

    public FaultPlan(Kind kind, long seed, int replicas) {
        if (replicas < 3) {
            throw new IllegalArgumentException("a fault plan needs 3 replicas or more, not " + replicas);
        }
        this.kind = kind;
        this.replicas = replicas;
        this.random = new Random(seed);
    }

    public Kind kind() {
        return kind;
    }

    /** The next episode of the schedule. */
    public Episode next() {
        long gap = between(2_000, 5_000);
        Kind k = kind == Kind.MIXED ? Kind.values()[random.nextInt(3)] : kind;
        int victim = random.nextInt(replicas);
        return switch (k) {
            case KILL -> new Episode(gap, Action.KILL, victim, between(500, 3_000), -1, 0, 0);
            case PAUSE -> new Episode(gap, Action.PAUSE, victim, between(1_000, 7_000), -1, 0, 0);
            default -> partition(gap, victim);
        };
    }

    private Episode partition(long gap, int victim) {
        int shape = random.nextInt(4);
        if (shape == 0) {
            return new Episode(gap, Action.ISOLATE, victim, between(1_000, SHORT_MAX_MILLIS), -1, 0, 0);
        }
        if (shape == 1) {
            int second = (victim + 1 + random.nextInt(replicas - 1)) % replicas;
            long hold = between(6_000, 9_000);
            long after = between(1_000, 3_000);
            return new Episode(gap, Action.ISOLATE_TWO, victim, hold, second, after, between(1_000, hold - after - 500));
        }
        return new Episode(gap, Action.ISOLATE, victim, between(3_000, 9_000), -1, 0, 0);
    }

    private long between(long min, long max) {
        return min + random.nextInt((int) (max - min + 1));
    }
}
