package org.fts.gc;

import java.util.Properties;

/** The conformance suite on JGroups' TCP stack with leader offload ({@code fts.gc.jgroups.ordering=offload}). */
class JGroupsTcpOffloadConformanceTest extends JGroupsTcpConformanceTest {
    @Override
    protected Properties config() {
        Properties p = super.config();
        p.setProperty("fts.gc.jgroups.ordering", "offload");
        return p;
    }
}
