package org.fts.gc;

import org.fts.gc.local.LocalNetwork;

/** The conformance suite on the in-JVM binding, each test on a private network. */
class LocalConformanceTest extends GroupChannelConformance {
    private final LocalNetwork network = new LocalNetwork();

    @Override
    protected GroupChannel create(String memberName, int groupSize) {
        return network.channel(new MemberId(memberName), new GroupConfig(groupSize, true));
    }

    @Override
    protected void crash(GroupChannel member) {
        network.crash(group, member.self());
    }

    @Override
    protected void isolate(GroupChannel member) {
        network.partition(group, java.util.List.of(java.util.Set.of(member.self())));
    }

    @Override
    protected void heal(GroupChannel member) {
        network.heal(group);
    }
}
