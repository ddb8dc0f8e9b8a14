package org.fts.gc.raft;

import org.fts.config.ConfigException;
import org.fts.jgroups.JGroupsStack;

/**
 * The raft binding's JGroups stack: the shared stack ({@link JGroupsStack}, {@code fts.jgroups.stack}: the same
 * transport, discovery, failure detection and encryption as the jgroups binding) with jgroups-raft's protocols on
 * top: {@code ELECTION} (leader election on view changes), {@code RAFT} (the replicated log; {@link FtsRaft}, which
 * brings a lagging follower up under load) and {@code REDIRECT} (a follower's appends go to the leader), put at the
 * stack's {@code ${binding.top}} placeholder. A stack that names the jgroups binding's {@code DirectOrdering}
 * policy is refused: it runs regular messages on the receiving thread, which must never block, and RAFT's processing
 * queue puts incoming messages with a blocking put when full.
 */
final class RaftStack {
    private RaftStack() {
    }

    /** What the raft binding puts on top of the stack ({@code ${binding.top}}); nothing on its transport. */
    static final JGroupsStack.Binding BINDING = new JGroupsStack.Binding("raft", "", "<"
            + VoteQuarantine.class.getName() + "/>\n    <raft.ELECTION vote_timeout=\"600\"/>\n    <"
            + FtsRaft.class.getName() + "/>\n    <raft.REDIRECT/>");

    /** The stack XML for {@code config}, with the raft binding's protocols on top. */
    static String xml(java.util.Properties config) {
        String xml = JGroupsStack.stackXml(config, BINDING);
        if (xml.contains("raft.RAFT")) {   // the binding's own is FtsRaft
            throw new ConfigException(JGroupsStack.STACK.name(), "names a stack with raft.RAFT of its own: the raft "
                    + "binding puts ELECTION, RAFT and REDIRECT at ${binding.top} itself");
        }
        if (java.util.regex.Pattern.compile("message_processing_policy\\s*=\\s*[\"'][^\"']*DirectOrdering[\"']").matcher(xml)
                .find()) {   // an attribute, not the shipped stacks' comment that names it
            throw new ConfigException(JGroupsStack.STACK.name(), "names the jgroups binding's message processing "
                    + "policy (DirectOrdering), which runs messages on the receiving thread: RAFT may block it");
        }
        return xml;
    }
}
