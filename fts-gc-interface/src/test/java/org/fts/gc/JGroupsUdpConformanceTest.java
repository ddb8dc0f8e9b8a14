package org.fts.gc;

import java.util.Properties;

import org.fts.gc.jgroups.JGroupsFaults;

/** The conformance suite on JGroups with the shipped loopback UDP stack, members in this JVM. */
class JGroupsUdpConformanceTest extends GroupChannelConformance {
    protected Properties config() {
        Properties p = new Properties();
        p.setProperty("fts.gc", "jgroups");
        p.setProperty("fts.gc.jgroups.stack", "udp");
        return p;
    }

    @Override
    protected GroupChannel create(String memberName, int groupSize) {
        Properties p = config();
        p.setProperty("fts.group.size", String.valueOf(groupSize));
        return GroupChannels.create(p, memberName);
    }

    @Override
    protected void crash(GroupChannel member) {
        JGroupsFaults.crash(member);
    }

    @Override
    protected void isolate(GroupChannel member) {
        JGroupsFaults.isolate(member);
    }

    @Override
    protected void heal(GroupChannel member) {
        JGroupsFaults.heal(member);
    }
}
