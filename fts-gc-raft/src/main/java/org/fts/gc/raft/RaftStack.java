package org.fts.gc.raft;

import org.fts.config.ConfigException;
import org.fts.jgroups.JGroupsStack;

/**
 * The raft binding's JGroups stack: the shared stack ({@link JGroupsStack}, {@code fts.gc.jgroups.stack}: the same
 * transport, discovery, failure detection and encryption as the jgroups binding) with jgroups-raft's protocols on
 * top: {@code ELECTION} (leader election on view changes), {@code RAFT} (the replicated log; {@link FtsRaft}, which
 * brings a lagging follower up under load) and {@code REDIRECT} (a follower's appends go to the leader). The jgroups
 * binding's {@code DirectOrdering} policy, should a user's stack name it, is taken out: it runs regular messages on
 * the receiving thread, which must never block, and RAFT's processing queue puts incoming messages with a blocking
 * put when full.
 */
final class RaftStack {
    private RaftStack() {
    }

    static String withRaft(String stackXml) {
        if (stackXml.contains("raft.RAFT")) {
            throw new ConfigException(JGroupsStack.STACK.name(), "names a stack with raft.RAFT of its own: the raft "
                    + "binding adds ELECTION, RAFT and REDIRECT on top of the jgroups binding's stack itself");
        }
        String xml = stackXml.replaceAll("\\s*message_processing_policy=\"org\\.fts\\.gc\\.jgroups\\.DirectOrdering\"",
                "");
        int end = xml.lastIndexOf("</config>");
        if (end < 0) {
            throw new ConfigException(JGroupsStack.STACK.name(), "names a stack XML without </config>");
        }
        return xml.substring(0, end)
                + "    <" + VoteQuarantine.class.getName() + "/>\n"
                + "    <raft.ELECTION vote_timeout=\"600\"/>\n"
                + "    <" + FtsRaft.class.getName() + "/>\n"
                + "    <raft.REDIRECT/>\n"
                + "</config>\n";
    }
}
