package org.fts.gc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.UUID;

import javax.management.MBeanServer;
import javax.management.ObjectName;

import org.fts.testing.Recorder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The total order's counters over JMX ({@code jgroups:type=fts-order,cluster="<group>/<member>"}), beside JGroups'
 * MBeans, on real channels with leader offload: the roles, the positions and the grants read what the group did,
 * and the MBean goes away with the channel.
 */
class OrderStatsJmxTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private final List<GroupChannel> channels = new ArrayList<>();
    private final String group = "jmx-" + UUID.randomUUID().toString().substring(0, 8);
    private final MBeanServer server = ManagementFactory.getPlatformMBeanServer();

    @AfterEach
    void close() {
        channels.forEach(GroupChannel::close);
    }

    private GroupChannel join(String name, Recorder r) {
        Properties p = new Properties();
        p.setProperty("fts.gc", "jgroups");
        p.setProperty("fts.jgroups.stack", "udp");
        p.setProperty("fts.gc.jgroups.ordering", "offload");
        p.setProperty("fts.group.size", "2");
        GroupChannel c = GroupChannels.create(p, name);
        channels.add(c);
        c.join(group, r);
        return c;
    }

    private ObjectName name(String member) throws Exception {
        return new ObjectName("jgroups:type=fts-order,cluster=" + ObjectName.quote(group + "/" + member));
    }

    private long number(String member, String attribute) throws Exception {
        return (Long) server.getAttribute(name(member), attribute);
    }

    @Test
    void countersShowRolesPositionsAndGrants() throws Exception {
        Recorder ra = new Recorder();
        Recorder rb = new Recorder();
        GroupChannel a = join("a", ra);
        GroupChannel b = join("b", rb);
        ra.awaitState(r -> r.epochsUnsafe().stream().anyMatch(e -> e.members().size() == 2), WAIT, () -> "a 2-member epoch");
        rb.awaitState(r -> !r.epochsUnsafe().isEmpty(), WAIT, () -> "b's first epoch");
        for (int i = 0; i < 10; i++) {
            a.abcast(("a" + i).getBytes(StandardCharsets.UTF_8));
            b.abcast(("b" + i).getBytes(StandardCharsets.UTF_8));
        }
        ra.awaitDelivered(20, WAIT);
        rb.awaitDelivered(20, WAIT);
        String seq = ra.epochs().get(ra.epochs().size() - 1).sequencer().name();
        String other = seq.equals("a") ? "b" : "a";
        assertEquals("offload", server.getAttribute(name("a"), "Ordering"));
        assertEquals("sequencer", server.getAttribute(name(seq), "Role"));
        assertEquals("member", server.getAttribute(name(other), "Role"));
        org.fts.process.Waits.await(() -> {
            try {
                return number("a", "Delivered") >= 20 && number("b", "Delivered") >= 20 && number("a", "Unacked") == 0
                        && number("b", "Unacked") == 0;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, WAIT, () -> "both members to count 20 deliveries and nothing unacknowledged");
        assertTrue(number(seq, "Held") >= number(seq, "Committed") && number(seq, "Committed") >= 20);
        assertTrue(number(seq, "Grants") >= 2, "both origins asked the sequencer for positions");
        assertEquals(0, number(other, "Grants"));
        assertEquals(-1, number(other, "Stable"), "only the sequencer knows the stability point");
        assertTrue(number(seq, "Recoveries") >= 1);
        assertTrue(server.getAttribute(name(other), "Phase").toString().startsWith("Open"));
        b.close();
        assertTrue(!server.isRegistered(name("b")), "closed: its MBean is gone");
    }
}
