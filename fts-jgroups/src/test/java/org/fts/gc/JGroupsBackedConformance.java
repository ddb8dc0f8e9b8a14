package org.fts.gc;

import org.fts.jgroups.JGroupsFaults;

/**
 * The conformance suite for a binding on a JGroups channel ({@code jgroups}, {@code raft}): crashes, isolations and
 * heals are JGroups faults ({@link JGroupsFaults}).
 */
public abstract class JGroupsBackedConformance extends GroupChannelConformance {

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
