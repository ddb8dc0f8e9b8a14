package org.fts.gc.jgroups;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;
import java.util.UUID;

import org.fts.gc.GroupChannel;
import org.fts.gc.GroupChannels;
import org.fts.gc.MemberId;
import org.fts.gc.View;
import org.fts.jgroups.JGroupsFaults;
import org.fts.testing.Recorder;
import org.fts.testing.SyncingListener;
import org.fts.process.Waits;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The shipped tcp stack with each member on its own loopback address, as {@code bin/fts chaos --hosts} and the
 * multi-host recipe run it (real JGroups channels in this JVM):
 * <ul>
 *   <li>five members sharing one bind port on 127.0.0.2-6 all start and form one view (FD_SOCK2 listened on every
 *       interface, so the fifth found its 4 ports taken and failed to start);</li>
 *   <li>a member that was cut off and merges back does not take the sequencer from the majority it merges into
 *       ({@link MajorityCoordinatorPolicy}): the cut-off member is chosen as the one JGroups' default would have
 *       made coordinator, the lowest address.</li>
 * </ul>
 */
class JGroupsHostsTest {
    private static final Duration FORM = Duration.ofSeconds(60);
    private final List<GroupChannel> channels = new ArrayList<>();
    private final List<Recorder> recorders = new ArrayList<>();

    @AfterEach
    void close() {
        channels.forEach(GroupChannel::close);
    }

    @Test
    void fiveMembersOnTheirOwnAddressesShareOneBindPort() {
        start(5);
        for (Recorder r : recorders) {
            r.awaitView(v -> v.size() == 5, FORM, "5 members");
        }
    }

    @Test
    void aMemberThatMergesBackLeavesTheMajoritysCoordinatorInPlace() {
        start(3);
        for (Recorder r : recorders) {
            r.awaitView(v -> v.size() == 3, FORM, "3 members");
        }
        GroupChannel lowest = channels.stream()
                .min(Comparator.comparing((GroupChannel c) -> ((JGroupsChannel) c).jchannel().getAddress())).get();
        List<GroupChannel> rest = channels.stream().filter(c -> c != lowest).toList();
        JGroupsFaults.isolate(lowest);
        Waits.await(() -> rest.stream().allMatch(c -> c.view().size() == 2) && lowest.view().size() == 1, FORM,
                () -> "the cut splits the view: " + channels.stream().map(GroupChannel::view).toList());
        MemberId majorityCoordinator = rest.get(0).view().coordinator();
        JGroupsFaults.heal(lowest);
        Waits.await(() -> channels.stream().allMatch(c -> c.view().size() == 3), FORM,
                () -> "the heal merges the view: " + channels.stream().map(GroupChannel::view).toList());
        for (GroupChannel c : channels) {
            View v = c.view();
            assertEquals(majorityCoordinator, v.coordinator(), "merge view at " + c.self() + ": " + v);
        }
    }

    private void start(int n) {
        String group = "hosts-" + UUID.randomUUID().toString().substring(0, 8);
        String port = String.valueOf(42000 + (int) (Math.random() * 3000));
        List<String> hosts = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            hosts.add("127.0.0." + (2 + i) + "[" + port + "]");
        }
        for (int i = 0; i < n; i++) {
            Properties p = new Properties();
            p.setProperty("fts.gc", "jgroups");
            p.setProperty("fts.group.size", String.valueOf(n));
            p.setProperty("fts.jgroups.stack", "tcp");
            p.setProperty("fts.jgroups.bind_addr", "127.0.0." + (2 + i));
            p.setProperty("fts.jgroups.tcp_port", port);
            p.setProperty("fts.jgroups.port_range", "0");
            p.setProperty("fts.jgroups.initial_hosts", String.join(",", hosts));
            SyncingListener l = new SyncingListener();
            GroupChannel ch = GroupChannels.create(p, "h" + i);
            l.channel = ch;
            channels.add(ch);
            recorders.add(l.recorder);
            ch.join(group, l);
        }
    }
}
