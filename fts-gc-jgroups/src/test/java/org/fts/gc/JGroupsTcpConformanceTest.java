package org.fts.gc;

import java.util.Properties;

/** The conformance suite on JGroups with the shipped loopback TCP stack. */
class JGroupsTcpConformanceTest extends JGroupsUdpConformanceTest {
    @Override
    protected Properties config() {
        Properties p = super.config();
        p.setProperty("fts.jgroups.stack", "tcp");
        return p;
    }
}
