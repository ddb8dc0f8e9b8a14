package org.fts.gc;

import java.util.Properties;

/**
 * The conformance suite on JGroups' UDP stack with leader offload ({@code fts.gc.jgroups.ordering=offload}):
 * origins multicast their own broadcasts at the positions the sequencer grants.
 */
class JGroupsOffloadConformanceTest extends JGroupsUdpConformanceTest {
    @Override
    protected Properties config() {
        Properties p = super.config();
        p.setProperty("fts.gc.jgroups.ordering", "offload");
        return p;
    }
}
