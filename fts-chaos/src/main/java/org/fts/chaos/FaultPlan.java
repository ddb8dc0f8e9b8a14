package org.fts.chaos;

import java.util.ArrayList;
import java.util.List;
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
 *       6-9 s and, 1-3 s into it, a second one for up to the rest of the first, so that (with 3 replicas) every
 *       replica is alone and the last primary view's members all go through minority views.</li>
 * </ul>
 * {@code mixed} draws each episode from those three. The network nemeses drop packets between replica hosts
 * (iptables, {@link NetFilter}):
 * <ul>
 *   <li>{@code netpart}: a replica cut off from every other, both ways, for 3-9 s;</li>
 *   <li>{@code bridge}: two replicas cut from each other, both ways, both still reaching the rest, 4-9 s;</li>
 *   <li>{@code oneway}: for 3-9 s, a replica's packets to one other dropped (the reverse direction passes), or,
 *       one time in 2, its packets to every other;</li>
 *   <li>{@code lossy}: for 3-9 s, 5, 20 or 50 % of the packets dropped, at random, both ways between a pair
 *       or, one time in 2, between a replica and every other.</li>
 * </ul>
 * {@code netmixed} draws each episode from those four, {@code kill} and {@code pause}. Replicas are drawn
 * uniformly, the sequencer r0 included. {@code killall} SIGKILLs every replica at once (a power loss) and
 * restarts them all 0.5-3 s later: with {@code --durability log}, nothing answered may be lost; with a log,
 * {@code mixed} draws power losses too. The storage nemeses need {@code --durability log} (docs/durability.md,
 * "Storage faults"):
 * <ul>
 *   <li>{@code corrupt}: SIGKILL a replica, flip one byte 25-75 % into its newest log segment and tear 1-64 bytes off
 *       its end, restart it 0.5-3 s later;</li>
 *   <li>{@code ctrl} (3 replicas): SIGKILL C; A and B commit without it for 3-6 s; SIGKILL A and B, flip a byte 25-75 %
 *       into what A logged meanwhile (only A and B hold it); restart A and C, and B 5-10 s later;</li>
 *   <li>{@code diskfull}: shrink a replica's log volume (tmpfs, set up at the start: root) to what it holds and 1 MiB;
 *       once the replica stops (its write failed) or 60 s passed, grow it back and restart the replica.</li>
 * </ul>
 * With a log, {@code mixed} draws {@code corrupt} and {@code ctrl} too, and {@code netmixed} (already root) those and
 * {@code diskfull}.
 *
 * <p>{@code powerloss} (3 replicas, {@code --durability log}): 2 or 3 replicas lose power at once ({@link PowerLoss}:
 * SIGKILL, then what was not synced dropped and each sync mark set back a sync, as of another boot), one of them with
 * its batch synced last damaged; they restart 0.5-3 s later, except the one that holds that batch intact, 5-10 s after
 * them (the others must wait for it, or prove the batch uncommitted: docs/durability.md, "After a power loss"). On the
 * raft binding the kill is all it plays: jgroups-raft syncs each append before acknowledging it, inside its own file
 * layer, so nothing it synced can be told from its append in flight, and raft detects no damage.
 *
 * <p>{@code reconfig} (the raft binding, docs/membership.md) draws {@code kill}, {@code pause}, {@code partition} and,
 * one time in two, a replacement: the voter at a replica's place is removed (bin/fts members remove), killed, and a
 * replica of a new id started there 0.5-3 s later; once it serves (a learner) it is added. So the voters are
 * changed under the faults of the episodes before and after, and the group's ids move on (r3, r4, ...).
 *
 * <p>{@code clock} is {@code kill}'s schedule (the same episodes for the same seed) on a group where one replica,
 * drawn from the seed, runs with its wall clock set {@code --skew} seconds off (libfaketime), from its first start and at every restart ({@link ChaosOptions#skewedReplica}).
 */
public final class FaultPlan {
    /** The nemeses. */
    public enum Kind {
        KILL, PAUSE, PARTITION, MIXED, NETPART, BRIDGE, ONEWAY, LOSSY, NETMIXED, KILLALL, CORRUPT, CTRL, DISKFULL, CLOCK,
        POWERLOSS, RECONFIG;

        public static Kind parse(String s) {
            try {
                return valueOf(s.toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("unknown nemesis '" + s + "' (" + NAMES + ")");
            }
        }

        /** Whether it drops packets between replica hosts: it needs {@code --hosts}, iptables and root. */
        public boolean needsNetFilter() {
            return ordinal() >= NETPART.ordinal() && ordinal() <= NETMIXED.ordinal();
        }

        /** Whether it acts on the replicas' logs: it needs {@code --durability log}. */
        public boolean needsLog() {
            return this == KILLALL || this == CORRUPT || this == CTRL || this == DISKFULL || this == POWERLOSS;
        }

        /** Whether it changes the voters while the group serves: the raft binding only (docs/membership.md). */
        public boolean needsRaft() {
            return this == RECONFIG;
        }

        /** Whether it fills a replica's disk: each replica's log on a volume of its own (tmpfs; root). */
        public boolean needsVolumes(boolean durable) {
            return this == DISKFULL || this == NETMIXED && durable;
        }

        @Override
        public String toString() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** Every nemesis, as the options name them. */
    public static final String NAMES = "kill, pause, partition, mixed, netpart, bridge, oneway, lossy, netmixed, "
            + "killall, corrupt, ctrl, diskfull, clock, powerloss, reconfig";

    /** What {@code mixed} and {@code netmixed} draw from; fixed, so that a seed keeps its schedule. */
    private static final Kind[] MIXED = {Kind.KILL, Kind.PAUSE, Kind.PARTITION};
    /** What {@code mixed} draws from when the replicas log: power losses and damaged logs too. */
    private static final Kind[] MIXED_DURABLE = {Kind.KILL, Kind.PAUSE, Kind.PARTITION, Kind.KILLALL, Kind.CORRUPT,
        Kind.CTRL};
    private static final Kind[] NETMIXED = {Kind.KILL, Kind.PAUSE, Kind.NETPART, Kind.BRIDGE, Kind.ONEWAY, Kind.LOSSY};
    /** What {@code netmixed} draws from when the replicas log: damaged logs and a full disk too. */
    private static final Kind[] NETMIXED_DURABLE = {Kind.KILL, Kind.PAUSE, Kind.NETPART, Kind.BRIDGE, Kind.ONEWAY,
        Kind.LOSSY, Kind.CORRUPT, Kind.CTRL, Kind.DISKFULL};
    /** What {@code reconfig} draws from: a replacement one time in two (RECONFIG standing for it). */
    private static final Kind[] RECONFIG = {Kind.KILL, Kind.PAUSE, Kind.PARTITION, Kind.RECONFIG, Kind.RECONFIG,
        Kind.RECONFIG};
    /** The share of packets a lossy episode drops, in percent. */
    static final int[] LOSS_PERCENTS = {5, 20, 50};

    /** What an episode does. CUT_OFF to LOSSY drop packets between replica hosts ({@link #isNetwork()}). */
    public enum Action {
        KILL, PAUSE, ISOLATE, ISOLATE_TWO, CUT_OFF, BRIDGE, ONEWAY, LOSSY, KILL_ALL, CORRUPT, CTRL, DISK_FULL, POWER_LOSS,
        REPLACE;

        public boolean isNetwork() {
            return ordinal() >= CUT_OFF.ordinal() && ordinal() <= LOSSY.ordinal();
        }
    }

    /** One direction between two replicas: packets from replica {@code from} to replica {@code to}. */
    public record Link(int from, int to) {
        @Override
        public String toString() {
            return "r" + from + "->r" + to;
        }
    }

    /** Longest fault that stays below failure detection (FD_ALL3 6 s + VERIFY_SUSPECT2 0.25 s), with margin. */
    public static final long SHORT_MAX_MILLIS = 3_000;

    /**
     * One episode: wait {@code gapMillis}, then apply {@code action} to {@code replica} for {@code holdMillis}
     * (for a kill: the delay before the restart); for ISOLATE_TWO also {@code second}, isolated
     * {@code secondAfterMillis} into the first isolation for {@code secondHoldMillis}. For BRIDGE, and ONEWAY or
     * LOSSY between a pair, {@code second} is the other replica of the pair; -1 means every other replica.
     * {@code lossPercent}: the share of packets a LOSSY episode drops.
     */
    public record Episode(long gapMillis, Action action, int replica, long holdMillis, int second,
                          long secondAfterMillis, long secondHoldMillis, int lossPercent) {
        static Episode of(long gap, Action action, int replica, long hold) {
            return new Episode(gap, action, replica, hold, -1, 0, 0, 0);
        }

        /**
         * Whether it starts only when every replica serves: a crash. A replica restarted after a crash has lost
         * what it held, and with three replicas, two without their history at once is beyond the fault model
         * (the group then waits rather than risk losing acknowledged requests: docs/primary-view.md). Pauses,
         * partitions and packet drops lose nothing, and start whenever the schedule says.
         */
        public boolean needsEveryReplicaServing() {
            return action == Action.KILL || action == Action.KILL_ALL || action == Action.CORRUPT
                    || action == Action.CTRL || action == Action.DISK_FULL || action == Action.POWER_LOSS
                    || action == Action.REPLACE;
        }

        /** Whether the fault stays below failure detection (the others may not notice it). */
        public boolean isShort() {
            return holdMillis <= SHORT_MAX_MILLIS;
        }

        /** The directions a network episode drops packets on, among {@code replicas} replicas; empty otherwise. */
        public List<Link> links(int replicas) {
            List<Link> links = new ArrayList<>();
            if (!action.isNetwork()) {
                return links;
            }
            for (int other = 0; other < replicas; other++) {
                if (other != replica && (second < 0 || other == second)) {
                    links.add(new Link(replica, other));
                    if (action != Action.ONEWAY) {
                        links.add(new Link(other, replica));
                    }
                }
            }
            return links;
        }

        @Override
        public String toString() {
            String others = second < 0 ? "every other replica" : "r" + second;
            return switch (action) {
                case KILL -> String.format(Locale.ROOT, "kill -9 r%d, restart after %.1f s", replica, holdMillis / 1e3);
                case REPLACE -> String.format(Locale.ROOT, "reconfig: remove replica %d's id from the voters, kill -9 it, "
                        + "start a new id in its place %.1f s later (a learner), add it once it serves", replica,
                        holdMillis / 1e3);
                case KILL_ALL -> String.format(Locale.ROOT, "kill -9 every replica at once (power loss), restart them "
                        + "all after %.1f s", holdMillis / 1e3);
                case PAUSE -> String.format(Locale.ROOT, "pause r%d for %.1f s", replica, holdMillis / 1e3);
                case ISOLATE -> String.format(Locale.ROOT, "isolate r%d for %.1f s%s", replica, holdMillis / 1e3,
                        isShort() ? " (short)" : "");
                case ISOLATE_TWO -> String.format(Locale.ROOT, "isolate r%d for %.1f s and, %.1f s in, r%d for %.1f s"
                        + " (two alone at once)", replica, holdMillis / 1e3, secondAfterMillis / 1e3, second,
                        secondHoldMillis / 1e3);
                case CUT_OFF -> String.format(Locale.ROOT, "netpart: cut r%d off from every other replica, both ways, "
                        + "for %.1f s", replica, holdMillis / 1e3);
                case BRIDGE -> String.format(Locale.ROOT, "bridge: cut r%d and r%d from each other, both ways, "
                        + "for %.1f s (both still reach the rest)", replica, second, holdMillis / 1e3);
                case ONEWAY -> String.format(Locale.ROOT, "oneway: drop r%d's packets to %s for %.1f s (the reverse "
                        + "direction passes)", replica, others, holdMillis / 1e3);
                case LOSSY -> String.format(Locale.ROOT, "lossy: drop %d%% of the packets between r%d and %s, both "
                        + "ways, for %.1f s", lossPercent, replica, others, holdMillis / 1e3);
                case CORRUPT -> String.format(Locale.ROOT, "corrupt: kill -9 r%d, flip a byte %d%% into its newest log "
                        + "segment and tear %d bytes off its end, restart after %.1f s", replica, lossPercent,
                        secondAfterMillis, holdMillis / 1e3);
                case CTRL -> String.format(Locale.ROOT, "ctrl: kill -9 r%d; %.1f s later kill -9 r%d and r%d, flip a "
                        + "byte %d%% into what r%d logged meanwhile, restart r%d and r%d; r%d %.1f s later",
                        replica, holdMillis / 1e3, second, third(), lossPercent, second, second, replica, third(),
                        secondHoldMillis / 1e3);
                case POWER_LOSS -> String.format(Locale.ROOT, "powerloss: %s lose power at once (kill -9; what was not "
                        + "synced dropped, the sync marks lagging), r%d's batch synced last damaged; restarted after "
                        + "%.1f s, the intact holder of that batch %.1f s later", lossPercent == 3 ? "all three replicas"
                        : "r" + replica + " and r" + second, replica, holdMillis / 1e3, secondHoldMillis / 1e3);
                case DISK_FULL -> String.format(Locale.ROOT, "diskfull: r%d's log volume shrunk to what it holds + 1 "
                        + "MiB; once it stops (or %.1f s), grown, and r%d restarted", replica, holdMillis / 1e3,
                        replica);
            };
        }

        /** CTRL's third replica: neither {@code replica} nor {@code second} (with 3 replicas, the remaining one). */
        public int third() {
            for (int r = 0; ; r++) {
                if (r != replica && r != second) {
                    return r;
                }
            }
        }
    }

    private final Kind kind;
    private final int replicas;
    private final Random random;
    private final Kind[] mixed;
    private final Kind[] netmixed;

    public FaultPlan(Kind kind, long seed, int replicas) {
        this(kind, seed, replicas, false);
    }

    /** {@code durable}: the replicas log, so {@code mixed} may kill them all at once. */
    public FaultPlan(Kind kind, long seed, int replicas, boolean durable) {
        this.mixed = durable ? MIXED_DURABLE : MIXED;
        this.netmixed = durable ? NETMIXED_DURABLE : NETMIXED;
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
        Kind k = switch (kind) {
            case MIXED -> mixed[random.nextInt(mixed.length)];
            case NETMIXED -> netmixed[random.nextInt(netmixed.length)];
            case RECONFIG -> RECONFIG[random.nextInt(RECONFIG.length)];
            default -> kind;
        };
        int victim = random.nextInt(replicas);
        return switch (k) {
            case KILL, CLOCK -> Episode.of(gap, Action.KILL, victim, between(500, 3_000));
            case KILLALL -> Episode.of(gap, Action.KILL_ALL, victim, between(500, 3_000));
            case PAUSE -> Episode.of(gap, Action.PAUSE, victim, between(1_000, 7_000));
            case NETPART -> Episode.of(gap, Action.CUT_OFF, victim, between(3_000, 9_000));
            case BRIDGE -> new Episode(gap, Action.BRIDGE, victim, between(4_000, 9_000), other(victim), 0, 0, 0);
            case ONEWAY -> new Episode(gap, Action.ONEWAY, victim, between(3_000, 9_000), pairOrAll(victim), 0, 0, 0);
            case LOSSY -> new Episode(gap, Action.LOSSY, victim, between(3_000, 9_000), pairOrAll(victim), 0, 0,
                    LOSS_PERCENTS[random.nextInt(LOSS_PERCENTS.length)]);
            // lossPercent: where in the log the byte is flipped (percent); secondAfterMillis: bytes torn off the end
            case CORRUPT -> new Episode(gap, Action.CORRUPT, victim, between(500, 3_000), -1, between(1, 64), 0,
                    (int) between(25, 75));
            // holdMillis: the two others' commits without it; secondHoldMillis: the last one's absence after
            case CTRL -> new Episode(gap, Action.CTRL, victim, between(3_000, 6_000), other(victim), 0,
                    between(5_000, 10_000), (int) between(25, 75));
            case DISKFULL -> Episode.of(gap, Action.DISK_FULL, victim, 60_000);
            // holdMillis: between the old replica's kill and the new one's start
            case RECONFIG -> Episode.of(gap, Action.REPLACE, victim, between(500, 3_000));
            // lossPercent: how many replicas lose power (2 or 3); second: the other one when 2
            case POWERLOSS -> new Episode(gap, Action.POWER_LOSS, victim, between(500, 3_000), other(victim), 0,
                    between(5_000, 10_000), random.nextBoolean() ? 2 : 3);
            default -> partition(gap, victim);
        };
    }

    private Episode partition(long gap, int victim) {
        int shape = random.nextInt(4);
        if (shape == 0) {
            return Episode.of(gap, Action.ISOLATE, victim, between(1_000, SHORT_MAX_MILLIS));
        }
        if (shape == 1) {
            int second = other(victim);
            long hold = between(6_000, 9_000);
            long after = between(1_000, 3_000);
            return new Episode(gap, Action.ISOLATE_TWO, victim, hold, second, after, between(1_000, hold - after - 500),
                    0);
        }
        return Episode.of(gap, Action.ISOLATE, victim, between(3_000, 9_000));
    }

    /** Another replica than {@code r}, uniformly. */
    private int other(int r) {
        return (r + 1 + random.nextInt(replicas - 1)) % replicas;
    }

    /** Another replica than {@code r}, or, one time in 2, -1: every other. */
    private int pairOrAll(int r) {
        return random.nextBoolean() ? other(r) : -1;
    }

    private long between(long min, long max) {
        return min + random.nextInt((int) (max - min + 1));
    }
}
