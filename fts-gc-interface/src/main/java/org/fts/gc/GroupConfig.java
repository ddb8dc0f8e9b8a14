package org.fts.gc;

import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;

import org.fts.config.ConfigKey;

/**
 * The group's own configuration, common to every binding: the group size N that primary views and uniform
 * delivery count against, and the delivery guarantee.
 *
 * @param groupSize  N, the number of replicas; 0 for no quorum (every view is primary)
 * @param uniform    deliver only what a majority holds ({@code fts.delivery=uniform})
 * @param maxBacklog the most bytes of broadcasts queued for a slow listener before the member falls behind
 *                   ({@code fts.delivery.max_backlog}, resolved: never 0)
 * @param readLeaseNanos how long a member that confirms its sequencer's leadership for reads promises not to join
 *                   a newer epoch's recovery ({@code fts.reads.lease}); 0: no lease, every read is confirmed
 * @param replayDelayNanos how long a broadcast another member cast may wait before it is handed to the listener, so
 *                   that one wake-up of the delivery thread hands over several ({@code fts.delivery.replay_delay});
 *                   0: each at once
 * @param voters     the replica ids whose presence and acknowledgements count toward majorities
 *                   ({@code fts.group.voters}); empty: every replica's. Any other replica is a learner: a member that
 *                   takes the state and follows the order but counts in no majority (docs/primary-view.md, "Voters
 *                   and learners")
 */
public record GroupConfig(int groupSize, boolean uniform, long maxBacklog, long readLeaseNanos,
        long replayDelayNanos, Set<String> voters) {

    public GroupConfig {
        voters = Set.copyOf(voters);
        if (!voters.isEmpty() && groupSize != voters.size()) {
            throw new IllegalArgumentException("group size " + groupSize + " but " + voters.size() + " voters "
                    + voters);
        }
    }

    /** Every replica votes. */
    public GroupConfig(int groupSize, boolean uniform, long maxBacklog, long readLeaseNanos, long replayDelayNanos) {
        this(groupSize, uniform, maxBacklog, readLeaseNanos, replayDelayNanos, Set.of());
    }

    /** With the default backlog bound (a thirty-second of the maximum heap), no read lease, no replay delay. */
    public GroupConfig(int groupSize, boolean uniform) {
        this(groupSize, uniform, backlogBound(0), 0, 0);
    }

    /** With no read lease and no replay delay. */
    public GroupConfig(int groupSize, boolean uniform, long maxBacklog) {
        this(groupSize, uniform, maxBacklog, 0, 0);
    }

    /** With no replay delay. */
    public GroupConfig(int groupSize, boolean uniform, long maxBacklog, long readLeaseNanos) {
        this(groupSize, uniform, maxBacklog, readLeaseNanos, 0);
    }

    /** The same, with a read lease of {@code nanos} (0: none). */
    public GroupConfig withReadLease(long nanos) {
        return new GroupConfig(groupSize, uniform, maxBacklog, nanos, replayDelayNanos, voters);
    }

    /** The same, with these voters (and N their number); the rest are learners. */
    public GroupConfig withVoters(Set<String> ids) {
        return new GroupConfig(ids.isEmpty() ? groupSize : ids.size(), uniform, maxBacklog, readLeaseNanos,
                replayDelayNanos, ids);
    }

    public static final ConfigKey<Integer> GROUP_SIZE = ConfigKey.integer("fts.group.size", 0, 0, 64, "replicas",
            "N: a view continues the group's history only if its members hold more than N/2 replicas, and uniform "
                    + "delivery waits for more than N/2; the GOA's 0 means the number of fts.group.voters, else of "
                    + "fts.replicas (plain channels: every view is primary)");
    public static final ConfigKey<String> DELIVERY = ConfigKey.choice("fts.delivery", "uniform",
            List.of("agreed", "uniform"), "uniform: a broadcast is delivered (a request executed and answered) only "
                    + "once a majority of replicas hold it, so no crash or partition of a minority loses an answered "
                    + "request; agreed: one hop sooner, but a sequencer cut off or crashing can lose answered "
                    + "requests (refused with fts.durability=log; declared reads are ordered)");

    public static final ConfigKey<Long> MAX_BACKLOG = ConfigKey.longValue("fts.delivery.max_backlog", 0, 0,
            Long.MAX_VALUE, "bytes",
            "most bytes of ordered broadcasts a member queues for an application that executes them more slowly "
                    + "than the group orders them; past it the member falls behind: it stops queuing, its "
                    + "application is told (it stops serving and fetches the group's state, as after a gap) and "
                    + "the group goes on at its own pace. 0: a thirty-second of the JVM's maximum heap");

    public static final ConfigKey<java.time.Duration> READ_LEASE = ConfigKey.duration("fts.reads.lease",
            java.time.Duration.ZERO, java.time.Duration.ZERO, java.time.Duration.ofSeconds(10),
            "declared reads on the jgroups binding (docs/reads.md): 0 confirms every read with the sequencer (the read "
                    + "index; no clock assumed); above 0 the sequencer holds a lease its followers grant for this long, "
                    + "answers reads under it without asking anyone, and a member that granted one joins a newer "
                    + "epoch's recovery only once it expired (a recovery waits up to this long). Safe only while "
                    + "clocks run at rates within 1% of each other. The raft binding refuses it");

    public static final ConfigKey<java.time.Duration> REPLAY_DELAY = ConfigKey.duration("fts.delivery.replay_delay",
            java.time.Duration.ofMillis(1), java.time.Duration.ZERO, java.time.Duration.ofMillis(100),
            "jgroups binding: longest a replica whose own clients are quiet (none of its broadcasts on the way, none "
                    + "sent for ten times this long) lets a broadcast another replica's clients sent wait before it "
                    + "executes it, so that one wake-up of its delivery thread executes several (docs/performance.md, "
                    + "\"Replays that wait\"); its own broadcasts, reads and every other event are handed over at once, "
                    + "and order is kept. 0: each at once");

    public static final ConfigKey<List<String>> VOTERS = ConfigKey.list("fts.group.voters", List.of(),
            "jgroups binding: the replica ids (fts.replica.id) whose presence and acknowledgements count toward "
                    + "majorities, e.g. r0,r1,r2 (then N is their number); a replica with any other id is a learner: it "
                    + "takes the state, follows the order and serves its clients, but counts in no majority, so a "
                    + "replica started under a wrong id can never make a second majority. Empty: every replica votes, "
                    + "and no more than N distinct ids may ever run");

    /** The common keys, validated and logged with every binding's own. */
    public static final List<ConfigKey<?>> KEYS = List.of(GROUP_SIZE, DELIVERY, MAX_BACKLOG, READ_LEASE,
            REPLAY_DELAY, VOTERS);

    /**
     * Reads the common keys. {@code fts.group.voters}, when set, names distinct ids, and N is 0 (then their number) or
     * their number.
     */
    public static GroupConfig from(Properties props) {
        List<String> voters = VOTERS.get(props);
        Set<String> ids = new java.util.LinkedHashSet<>(voters);
        if (ids.size() != voters.size()) {
            throw new org.fts.config.ConfigException(VOTERS.name(), "names an id twice: " + voters);
        }
        int n = GROUP_SIZE.get(props);
        if (!ids.isEmpty() && n != 0 && n != ids.size()) {
            throw new org.fts.config.ConfigException(VOTERS.name(), "names " + ids.size() + " replicas, but "
                    + GROUP_SIZE.name() + " is " + n + ": N is the number of voters (leave " + GROUP_SIZE.name()
                    + " at 0, or set both alike)");
        }
        return new GroupConfig(ids.isEmpty() ? n : ids.size(), "uniform".equals(DELIVERY.get(props)),
                backlogBound(MAX_BACKLOG.get(props)), READ_LEASE.get(props).toNanos(),
                REPLAY_DELAY.get(props).toNanos(), ids);
    }

    /** The voters this configuration names ({@link GroupChannel#voters}: a binding's are fixed at start). */
    public Voters voterSet() {
        return new Voters(voters, groupSize);
    }

    /** Whether replica {@code replicaId}'s presence and acknowledgements count toward majorities. */
    public boolean votes(String replicaId) {
        return voters.isEmpty() || voters.contains(replicaId);
    }

    /** Whether member {@code m} counts toward majorities ({@link #votes(String)}). */
    public boolean votes(MemberId m) {
        return votes(m.replica());
    }

    /** Voting replicas (distinct {@link MemberId#replica()} ids that {@link #votes}) among {@code members}. */
    public int voters(Collection<MemberId> members) {
        Set<String> ids = new HashSet<>();
        for (MemberId m : members) {
            if (votes(m.replica())) {
                ids.add(m.replica());
            }
        }
        return ids.size();
    }

    /** What {@code fts.delivery.max_backlog} stands for: itself, or a thirty-second of the maximum heap. */
    public static long backlogBound(long configured) {
        return configured > 0 ? configured : Math.max(1 << 20, Runtime.getRuntime().maxMemory() / 32);
    }

    /** Replicas (distinct {@link MemberId#replica()} ids) among {@code members}. */
    public static int replicas(Collection<MemberId> members) {
        Set<String> ids = new HashSet<>();
        for (MemberId m : members) {
            ids.add(m.replica());
        }
        return ids.size();
    }

    /**
     * How many voting replicas make a majority: of N, or, with no group size, of the replicas in {@code members}
     * (the epoch's membership). Count them with {@link #voters}.
     */
    public int majority(Collection<MemberId> members) {
        int n = groupSize > 0 ? groupSize : voters(members);
        return n / 2 + 1;
    }
}
