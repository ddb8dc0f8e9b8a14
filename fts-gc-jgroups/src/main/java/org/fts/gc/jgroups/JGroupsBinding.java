package org.fts.gc.jgroups;

import java.util.List;
import java.util.Properties;

import org.fts.config.ConfigKey;
import org.fts.gc.GroupBinding;
import org.fts.gc.GroupChannel;
import org.fts.gc.MemberId;
import org.fts.jgroups.GroupSecurity;
import org.fts.jgroups.JGroupsStack;
import org.fts.order.Ordering;

/**
 * The {@code jgroups} binding: JGroups 5.5 for membership, failure detection and reliable FIFO channels, with
 * FTS's own sequencer ({@link TotalOrder}) for total order, on the stack {@link JGroupsStack} reads
 * ({@code fts.jgroups.stack} and the transport's keys, shared with the raft binding).
 */
public final class JGroupsBinding implements GroupBinding {
    public static final ConfigKey<java.time.Duration> STALL_TIMEOUT = ConfigKey.duration("fts.gc.jgroups.stall_timeout",
            java.time.Duration.ofSeconds(2), java.time.Duration.ZERO, java.time.Duration.ofMinutes(1),
            "the sequencer probes a member that holds less than the commit point and acknowledged nothing for this "
                    + "long, and excludes it if it answers no probe for as long again: a link the sequencer cannot use "
                    + "stalls its flow control, though the others may still hear the member; 0: off");

    public static final ConfigKey<String> ORDERING = ConfigKey.choice("fts.gc.jgroups.ordering", "sequencer",
            Ordering.aliases(), "how broadcasts are ordered, the same at every member: sequencer (the epoch's "
                    + "sequencer receives every broadcast and multicasts it: fewest hops, but every byte crosses its "
                    + "links twice) or offload (leader offload: origins ask the sequencer for positions and multicast "
                    + "their own broadcasts; the sequencer handles only grants, acknowledgements and recoveries)");

    /** The binding's own keys (the stack's and the group security's are {@link JGroupsStack}'s). */
    static final List<ConfigKey<?>> OWN = List.of(STALL_TIMEOUT, ORDERING);

    @Override
    public String alias() {
        return "jgroups";
    }

    @Override
    public List<ConfigKey<?>> keys() {
        List<ConfigKey<?>> all = new java.util.ArrayList<>(JGroupsStack.keys());
        all.addAll(OWN);
        return all;
    }

    @Override
    public GroupChannel create(Properties config, MemberId self) {
        String xml = JGroupsStack.stackXml(config, DirectOrdering.BINDING);
        return new JGroupsChannel(xml, org.fts.gc.GroupConfig.from(config), self, GroupSecurity.groupKey(config),
                STALL_TIMEOUT.get(config), org.fts.gc.Durability.from(config), Ordering.of(ORDERING.get(config)));
    }

    @Override
    public boolean logs() {
        return true;
    }
}
