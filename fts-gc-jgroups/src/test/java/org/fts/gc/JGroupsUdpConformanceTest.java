package org.fts.gc;

import java.util.Properties;

/** The conformance suite on JGroups with the shipped loopback UDP stack, members in this JVM. */
class JGroupsUdpConformanceTest extends JGroupsBackedConformance {
    protected Properties config() {
        Properties p = new Properties();
        p.setProperty("fts.gc", "jgroups");
        p.setProperty("fts.jgroups.stack", "udp");
        return p;
    }

    @Override
    protected GroupChannel create(String memberName, int groupSize) {
        Properties p = config();
        p.setProperty("fts.group.size", String.valueOf(groupSize));
        return GroupChannels.create(p, memberName);
    }
}
