package org.fts.gc;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

/**
 * The conformance suite on the raft binding (docs/group-communication.md, "The raft binding"): members a, b and c
 * of one static Raft membership, on the shipped loopback UDP stack, each with a log of its own. Where the suite
 * allows a binding's choice, raft takes the other branch: a view without a majority of a, b, c is never primary,
 * and a member that missed part of the history (a joiner, a merged minority) is given it from the leader's log
 * rather than told of a gap.
 */
class RaftConformanceTest extends JGroupsBackedConformance {
    private Path data;

    @Override
    protected boolean everyViewIsPrimary() {
        return false;
    }

    @Override
    protected GroupChannel create(String memberName, int groupSize) {
        try {
            if (data == null) {
                data = Files.createTempDirectory(Path.of("target"), "raft-conf-");
            }
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        Properties p = new Properties();
        p.setProperty("fts.gc", "raft");
        p.setProperty("fts.jgroups.stack", "udp");
        p.setProperty("fts.gc.raft.members", "a,b,c");
        p.setProperty("fts.group.size", String.valueOf(groupSize));
        p.setProperty("fts.durability.dir", data.toAbsolutePath().toString());
        return GroupChannels.create(p, memberName);
    }
}
