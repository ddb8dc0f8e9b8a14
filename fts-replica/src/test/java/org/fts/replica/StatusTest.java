package org.fts.replica;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Properties;

import org.junit.jupiter.api.Test;

/** How {@code fts status} finds a group from a replica's configuration, and its command line. */
class StatusTest {
    private static Properties props(String... kv) {
        Properties p = new Properties();
        for (int i = 0; i < kv.length; i += 2) {
            p.setProperty(kv[i], kv[i + 1]);
        }
        return p;
    }

    @Test
    void aTcpReplicasHostsAreItsDiscoveryList() {
        assertEquals(List.of("10.0.0.11", "10.0.0.12", "10.0.0.13"), List.copyOf(Status.hostsOf(props(
                "fts.jgroups.stack", "tcp",
                "fts.jgroups.initial_hosts", "10.0.0.11[7800],10.0.0.12[7800], 10.0.0.13[7800]",
                "fts.replicas", "a:1,b:2"))));
    }

    @Test
    void otherwiseTheHostsOfItsReplicaList() {
        assertEquals(List.of("10.0.0.11", "10.0.0.12"), List.copyOf(Status.hostsOf(props(
                "fts.replicas", "10.0.0.11:7001,10.0.0.12:7001,10.0.0.11:7002"))));
        assertEquals(List.of("127.0.0.1"), List.copyOf(Status.hostsOf(props())));
    }

    @Test
    void helpSaysHowToPointItAtAGroupAndBadOptionsAreRefused() {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        assertEquals(0, Status.run(new String[] {"--help"}, new PrintStream(buf, true, StandardCharsets.UTF_8)));
        String help = buf.toString(StandardCharsets.UTF_8);
        assertTrue(help.contains("--config") && help.contains("--hosts") && help.contains("exit 0"), help);
        assertThrows(IllegalArgumentException.class,
                () -> Status.run(new String[] {"--frobnicate", "x"}, new PrintStream(new ByteArrayOutputStream())));
        assertThrows(IllegalArgumentException.class,
                () -> Status.run(new String[] {"--at", "nohostport"}, new PrintStream(new ByteArrayOutputStream())));
    }
}
