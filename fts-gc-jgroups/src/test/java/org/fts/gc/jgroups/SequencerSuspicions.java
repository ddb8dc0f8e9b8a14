package org.fts.gc.jgroups;

import org.fts.gc.GroupChannel;
import org.fts.gc.GroupException;

/** Tests of the sequencer watch read how often a member of the jgroups binding suspected its sequencer. */
public final class SequencerSuspicions {
    private SequencerSuspicions() {
    }

    /** How many times {@code member} suspected its sequencer for answering no probe (the sequencer watch). */
    public static long of(GroupChannel member) {
        if (!(member instanceof JGroupsChannel jc) || jc.orderStats() == null) {
            throw new GroupException(member.self() + " is not a joined JGroups channel");
        }
        return jc.orderStats().getSequencerSuspicions();
    }
}
