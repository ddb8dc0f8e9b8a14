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
 * @param groupSize N, the number of replicas; 0 for no quorum (every view is primary)
 * @param uniform   deliver only what a majority holds ({@code fts.delivery=uniform})
 */
public record GroupConfig(int groupSize, boolean uniform) {

    public static final ConfigKey<Integer> GROUP_SIZE = ConfigKey.integer("fts.group.size", 0, 0, 64, "replicas",
            "N: a view continues the group's history only if its members hold more than N/2 replicas, and uniform "
                    + "delivery waits for more than N/2; the GOA's 0 means the number of fts.replicas (plain "
                    + "channels: every view is primary)");
    public static final ConfigKey<String> DELIVERY = ConfigKey.choice("fts.delivery", "uniform",
            List.of("agreed", "uniform"), "uniform: a broadcast is delivered (a request executed and answered) only "
                    + "once a majority of replicas hold it, so no crash or partition of a minority loses an answered "
                    + "request; agreed: one hop sooner, but a sequencer cut off or crashing can lose answered requests");

    /** The common keys, validated and logged with every binding's own. */
    public static final List<ConfigKey<?>> KEYS = List.of(GROUP_SIZE, DELIVERY);

    public static GroupConfig from(Properties props) {
        return new GroupConfig(GROUP_SIZE.get(props), "uniform".equals(DELIVERY.get(props)));
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
     * How many replicas make a majority: of N, or, with no group size, of the replicas in {@code members}
     * (the epoch's membership).
     */
    public int majority(Collection<MemberId> members) {
        int n = groupSize > 0 ? groupSize : replicas(members);
        return n / 2 + 1;
    }
}
