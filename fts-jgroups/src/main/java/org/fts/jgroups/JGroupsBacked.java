package org.fts.jgroups;

import org.jgroups.JChannel;

/**
 * A group channel that runs on a JGroups channel of its own (the jgroups and raft bindings): fault injection
 * (the test-jar's {@code JGroupsFaults}) reaches its stack through this.
 */
public interface JGroupsBacked {
    /** The JGroups channel, or null before the join. */
    JChannel jchannel();
}
