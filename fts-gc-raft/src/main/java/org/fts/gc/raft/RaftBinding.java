package org.fts.gc.raft;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

import org.fts.config.ConfigException;
import org.fts.config.ConfigKey;
import org.fts.gc.Durability;
import org.fts.gc.GroupBinding;
import org.fts.gc.GroupChannel;
import org.fts.gc.GroupConfig;
import org.fts.gc.MemberId;
import org.fts.jgroups.GroupSecurity;
import org.fts.jgroups.JGroupsStack;

/**
 * The {@code raft} binding: the group layer on jgroups-raft, on the JGroups stacks and keys both JGroups-based
 * bindings share ({@link JGroupsStack}, {@code fts.jgroups.*}: stack, addresses, encryption) with Raft's protocols
 * on top ({@link RaftChannel}). The jgroups binding's own keys (ordering, stall timeout) are not this binding's.
 */
public final class RaftBinding implements GroupBinding {
    public static final ConfigKey<List<String>> MEMBERS = ConfigKey.list("fts.gc.raft.members", List.of(),
            "fts.gc=raft: the replica ids (fts.replica.id) of the group's first Raft members, e.g. r0,r1,r2; a "
                    + "majority of them must be in a view for it to serve. A replica not named starts as a learner; "
                    + "bin/fts members changes the members while serving, and a member's log keeps them");
    public static final ConfigKey<Duration> RESEND = ConfigKey.duration("fts.gc.raft.resend", Duration.ofSeconds(1),
            Duration.ofMillis(50), Duration.ofMinutes(1),
            "fts.gc=raft: a member appends its broadcasts again when none was applied for this long (a lost "
                    + "append)");
    public static final ConfigKey<Duration> HEARTBEAT = ConfigKey.duration("fts.gc.raft.heartbeat",
            Duration.ofMillis(20), Duration.ofMillis(1), Duration.ofSeconds(10),
            "fts.gc=raft: how often an idle leader sends AppendEntries (heartbeat, resend to a lagging follower, "
                    + "the commit index): a follower applies an entry committed while the leader is idle at most "
                    + "this much later");

    static final List<ConfigKey<?>> OWN = List.of(MEMBERS, RESEND, HEARTBEAT);

    @Override
    public String alias() {
        return "raft";
    }

    @Override
    public List<ConfigKey<?>> keys() {
        List<ConfigKey<?>> all = new ArrayList<>(JGroupsStack.keys());
        all.addAll(OWN);
        return all;
    }

    @Override
    public boolean logs() {
        return true;
    }

    @Override
    public GroupChannel create(Properties config, MemberId self) {
        List<String> members = MEMBERS.get(config);
        if (members.isEmpty()) {
            throw new ConfigException(MEMBERS.name(), "is empty: fts.gc=raft needs the group's replica ids");
        }
        if (!GroupConfig.READ_LEASE.get(config).isZero()) {
            throw new ConfigException(GroupConfig.READ_LEASE.name(), "is the jgroups binding's: with fts.gc=raft "
                    + "every declared read is confirmed through the log (docs/reads.md); leave it 0");
        }
        if (!GroupConfig.VOTERS.get(config).isEmpty()) {
            throw new ConfigException(GroupConfig.VOTERS.name(), "is the jgroups binding's: with fts.gc=raft the voters "
                    + "are the Raft members, fts.gc.raft.members; leave it empty");
        }
        return new RaftChannel(RaftStack.xml(config), GroupConfig.from(config), self,
                GroupSecurity.groupKey(config), Durability.from(config), Durability.directory(config),
                members, RESEND.get(config).toMillis(), HEARTBEAT.get(config).toMillis(),
                Durability.CHECKPOINT.get(config));
    }
}
