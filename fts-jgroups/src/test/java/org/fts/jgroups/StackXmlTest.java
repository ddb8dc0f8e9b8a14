package org.fts.jgroups;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;

import java.util.Properties;

import org.junit.jupiter.api.Test;

/**
 * The shipped stacks' {@code ${fts.jgroups.*}} placeholders are filled from FTS configuration, and a binding's parts
 * go where its placeholders are: no regular expression edits a stack.
 */
class StackXmlTest {
    @Test
    void aBindingsPartsGoAtItsPlaceholdersAndAStackOfOnesOwnWithoutTheTopOneIsRefusedNamingIt() throws Exception {
        JGroupsStack.Binding b = new JGroupsStack.Binding("test", "ip_mcast=\"true\"", "<pbcast.STATE_TRANSFER/>");
        for (String stack : java.util.List.of("udp", "tcp")) {
            Properties p = new Properties();
            p.setProperty("fts.jgroups.stack", stack);
            String xml = JGroupsStack.stackXml(p, b);
            assertTrue(xml.contains("<pbcast.STATE_TRANSFER/>\n</config>"), "on top, last: " + xml);
            assertEquals(stack.equals("udp"), xml.contains("<UDP ip_mcast=\"true\""), "on the udp transport: " + xml);
        }
        java.nio.file.Path own = java.nio.file.Files.createTempFile("own-stack", ".xml");
        try {
            Properties p = new Properties();
            p.setProperty("fts.jgroups.stack", "tcp");
            java.nio.file.Files.writeString(own, JGroupsStack.stackXml(p).replace("</config>", "    <FRAG2/>\n</config>"));
            p.setProperty("fts.jgroups.stack", own.toString());
            org.fts.config.ConfigException e = assertThrows(org.fts.config.ConfigException.class,
                    () -> JGroupsStack.stackXml(p, b));
            assertTrue(e.getMessage().contains("fts.jgroups.stack") && e.getMessage().contains("${binding.top}")
                    && e.getMessage().contains("test binding"), e.getMessage());
            assertTrue(JGroupsStack.stackXml(p, JGroupsStack.Binding.none("test")).contains("<FRAG2/>"),
                    "a binding that puts nothing on top takes it as it is");
        } finally {
            java.nio.file.Files.deleteIfExists(own);
        }
    }

    @Test
    void aKeyUnderItsOldNameIsAStartupErrorNamingTheNewOne() {
        Properties p = new Properties();
        p.setProperty("fts.gc.jgroups.bind_addr", "127.0.0.2");
        org.fts.config.ConfigException e = assertThrows(org.fts.config.ConfigException.class,
                () -> JGroupsStack.stackXml(p));
        assertTrue(e.getMessage().contains("fts.gc.jgroups.bind_addr") && e.getMessage().contains("fts.jgroups.bind_addr"),
                e.getMessage());
    }

    @Test
    void theMulticastTtlIsASettingThatDefaultsToTheHostOnly() {
        Properties p = new Properties();
        assertTrue(JGroupsStack.stackXml(p).contains("ip_ttl=\"0\""));
        p.setProperty("fts.jgroups.mcast_ttl", "4");
        assertTrue(JGroupsStack.stackXml(p).contains("ip_ttl=\"4\""));
    }

    @Test
    void theTcpStackTakesItsAddressAndInitialHostsFromConfiguration() {
        Properties p = new Properties();
        p.setProperty("fts.jgroups.stack", "tcp");
        p.setProperty("fts.jgroups.bind_addr", "127.0.0.3");
        p.setProperty("fts.jgroups.initial_hosts", "127.0.0.2[7800],127.0.0.3[7800]");
        String xml = JGroupsStack.stackXml(p);
        assertTrue(xml.contains("bind_addr=\"127.0.0.3\""), xml);
        assertTrue(xml.contains("initial_hosts=\"127.0.0.2[7800],127.0.0.3[7800]\""), xml);
    }

    /**
     * Both shipped stacks keep announcing a member's last multicast seqno for 5 s after it stops multicasting (JGroups
     * announces it once by default): last multicasts lost to a short cut were otherwise found only at the next STABLE
     * round, and under leader offload an origin's lost DATA held every member's commit back 10-26 s (chaos partition
     * seed 233, docs/group-communication.md).
     */
    @Test
    void bothStacksAnnounceTheLastSeqnoForFiveSeconds() throws Exception {
        for (String stack : new String[] {"udp", "tcp"}) {
            Properties p = new Properties();
            p.setProperty("fts.jgroups.stack", stack);
            String xml = JGroupsStack.stackXml(p);
            try (org.jgroups.JChannel ch = new org.jgroups.JChannel(
                    new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)))) {
                org.jgroups.protocols.pbcast.NAKACK2 nak = ch.getProtocolStack()
                        .findProtocol(org.jgroups.protocols.pbcast.NAKACK2.class);
                assertEquals(25, nak.getResendLastSeqnoMaxTimes(), stack);
                assertEquals(200, nak.getXmitInterval(), stack);
            }
        }
    }

    /**
     * JGroups' probe, which fts status reads: on in both shipped stacks, over TCP only, on the bind address and the
     * configured port only; {@code fts.jgroups.probe=false} turns it off.
     */
    @Test
    void bothStacksServeTheProbeOverTcpOnTheBindAddressOnlyUnlessTurnedOff() throws Exception {
        for (String stack : new String[] {"udp", "tcp"}) {
            Properties p = new Properties();
            p.setProperty("fts.jgroups.stack", stack);
            p.setProperty("fts.jgroups.bind_addr", "127.0.0.3");
            p.setProperty("fts.jgroups.probe_port", "7611");
            try (org.jgroups.JChannel ch = new org.jgroups.JChannel(new ByteArrayInputStream(
                    JGroupsStack.stackXml(p).getBytes(StandardCharsets.UTF_8)))) {
                org.jgroups.stack.DiagnosticsHandler d = ch.getProtocolStack().getTransport().getDiagnosticsHandler();
                assertTrue(d.isEnabled() && d.tcpEnabled() && !d.udpEnabled(), stack);
                assertEquals("127.0.0.3", d.getBindAddress().getHostAddress(), stack);
                assertEquals(7611, d.getPort(), stack);
            }
            p.setProperty("fts.jgroups.probe", "false");
            try (org.jgroups.JChannel ch = new org.jgroups.JChannel(new ByteArrayInputStream(
                    JGroupsStack.stackXml(p).getBytes(StandardCharsets.UTF_8)))) {
                org.jgroups.stack.DiagnosticsHandler d = ch.getProtocolStack().getTransport().getDiagnosticsHandler();
                assertTrue(d == null || !d.isEnabled(), stack);
            }
        }
    }
}
