package org.fts.gc.jgroups;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Properties;

import org.junit.jupiter.api.Test;

/** The shipped stacks' {@code ${fts.gc.jgroups.*}} placeholders are filled from FTS configuration. */
class StackXmlTest {
    @Test
    void theMulticastTtlIsASettingThatDefaultsToTheHostOnly() {
        Properties p = new Properties();
        assertTrue(JGroupsBinding.stackXml(p).contains("ip_ttl=\"0\""));
        p.setProperty("fts.gc.jgroups.mcast_ttl", "4");
        assertTrue(JGroupsBinding.stackXml(p).contains("ip_ttl=\"4\""));
    }

    @Test
    void theTcpStackTakesItsAddressAndInitialHostsFromConfiguration() {
        Properties p = new Properties();
        p.setProperty("fts.gc.jgroups.stack", "tcp");
        p.setProperty("fts.gc.jgroups.bind_addr", "127.0.0.3");
        p.setProperty("fts.gc.jgroups.initial_hosts", "127.0.0.2[7800],127.0.0.3[7800]");
        String xml = JGroupsBinding.stackXml(p);
        assertTrue(xml.contains("bind_addr=\"127.0.0.3\""), xml);
        assertTrue(xml.contains("initial_hosts=\"127.0.0.2[7800],127.0.0.3[7800]\""), xml);
    }
}
