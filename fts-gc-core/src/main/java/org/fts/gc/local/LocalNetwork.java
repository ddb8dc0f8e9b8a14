package org.fts.gc.local;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.fts.gc.GroupConfig;
import org.fts.gc.GroupException;
import org.fts.gc.MemberId;

/**
 * An in-JVM network on which {@link LocalChannel}s form groups: the whole {@code local} binding. It is a
 * real total-order implementation, not a stand-in: each connected component (partition) of a group has its
 * own sequencer, which orders every broadcast and every view change of that component under one lock and
 * hands each to every member's delivery queue in that order.
 *
 * <p>What it guarantees beyond {@link org.fts.gc.GroupChannel}: delivery is uniform (whatever
 * {@code fts.delivery} says) and virtually synchronous (a broadcast is ordered for all members of its
 * component at once, and views are ordered with broadcasts), so a crash never leaves a broadcast at some
 * survivors only. Its recoveries are instantaneous and use the same decision as the JGroups binding
 * ({@link org.fts.gc.internal.EpochPlan}). Tests that need JGroups' weaker timing run on JGroups.
 *
 * <p>Fault injection ({@link #crash}, {@link #partition}, {@link #heal}, {@link #setDeliveryDelay}) acts at
 * once, from any thread. Channels of one network find each other by group name; distinct networks never
 * see each other, so tests create their own with {@code new LocalNetwork()}, while ORBs configured with
 * {@code fts.gc=local} share the network named by {@code fts.gc.local.network}.
 */
public final class LocalNetwork {
    private static final Map<String, LocalNetwork> NAMED = new ConcurrentHashMap<>();

    private final String name;
    private final Map<String, LocalGroup> groups = new ConcurrentHashMap<>();
    private volatile long delayNanos;

    /** A private network, seen by nobody else. */
    public LocalNetwork() {
        this("private");
    }

    private LocalNetwork(String name) {
        this.name = name;
    }

    /** The JVM-wide network of that name, created on first use. */
    public static LocalNetwork named(String name) {
        return NAMED.computeIfAbsent(name, LocalNetwork::new);
    }

    /** A new unjoined channel on this network for member {@code self}, with no quorum (every view primary). */
    public LocalChannel channel(MemberId self) {
        return channel(self, new GroupConfig(0, true));
    }

    /** A new unjoined channel on this network for member {@code self}; every member of a group uses one config. */
    public LocalChannel channel(MemberId self, GroupConfig config) {
        return new LocalChannel(this, self, config);
    }

    /**
     * Every delivery to every member of this network, from now on, reaches its listener {@code delay}
     * later than it would have (order is kept). Zero turns it off.
     */
    public void setDeliveryDelay(Duration delay) {
        this.delayNanos = delay.toNanos();
    }

    long delayNanos() {
        return delayNanos;
    }

    /** Kills {@code member} of {@code group} abruptly: no further callbacks, queued deliveries dropped. */
    public void crash(String group, MemberId member) {
        existing(group).remove(member, true);
    }

    /**
     * Splits {@code group} into the given sides; members named in no side form one more side together.
     * Each side installs its own view (with its own sequencer) at once.
     */
    public void partition(String group, List<Set<MemberId>> sides) {
        existing(group).partition(sides);
    }

    /** Merges every partition of {@code group} into one view (a merge view listing the subgroups). */
    public void heal(String group) {
        existing(group).heal();
    }

    LocalGroup group(String group) {
        return groups.computeIfAbsent(group, LocalGroup::new);
    }

    private LocalGroup existing(String group) {
        LocalGroup g = groups.get(group);
        if (g == null) {
            throw new GroupException("no group " + group + " on local network " + name);
        }
        return g;
    }

    @Override
    public String toString() {
        return "LocalNetwork[" + name + "]";
    }
}
