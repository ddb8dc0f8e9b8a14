package org.fts.gc.raft;

import org.jgroups.Message;
import org.jgroups.protocols.raft.Log;
import org.jgroups.protocols.raft.RAFT;
import org.jgroups.protocols.raft.election.BaseElection;
import org.jgroups.protocols.raft.election.VoteRequest;
import org.jgroups.raft.util.LogCache;
import org.jgroups.stack.Protocol;
import org.jgroups.util.MessageBatch;

/**
 * Below jgroups-raft's {@code ELECTION}: while this member's log is quarantined ({@link SyncedSnapshotLog#quarantined},
 * {@link Quarantine}), the vote requests that reach it are dropped, so it never answers one: it is never counted in an
 * election's majority nor elected (ELECTION's coordinator elects the most advanced of the members that answered). As the
 * view's coordinator it still asks the others, so a group whose coordinator is quarantined still elects a leader among
 * them. Everything else passes; in particular the leader's AppendEntries, which bring its log back.
 */
public class VoteQuarantine extends Protocol {
    private short election = -1;
    private RAFT raft;

    @Override
    public void start() throws Exception {
        super.start();
        BaseElection e = stack.findProtocol(BaseElection.class);
        election = e == null ? -1 : e.getId();
        raft = stack.findProtocol(RAFT.class);
    }

    @Override
    public Object up(Message msg) {
        if (drops(msg)) {
            log.debug("%s: a vote request from %s dropped: its log is quarantined", raft.raftId(), msg.src());
            return null;
        }
        return up_prot.up(msg);
    }

    @Override
    public void up(MessageBatch batch) {
        batch.removeIf(this::drops, true);
        if (!batch.isEmpty()) {
            up_prot.up(batch);
        }
    }

    private boolean drops(Message msg) {
        if (election < 0 || raft == null || !(msg.getHeader(election) instanceof VoteRequest)) {
            return false;
        }
        Log l = raft.log();
        if (l instanceof LogCache c) {   // RAFT's cache in front of the file log
            l = c.log();
        }
        return l instanceof SyncedSnapshotLog s && s.quarantined();
    }
}
