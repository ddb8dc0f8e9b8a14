package org.fts.gc.raft;

import java.util.List;
import java.util.concurrent.TimeUnit;

import org.jgroups.Address;
import org.jgroups.Message;
import org.jgroups.annotations.ManagedAttribute;
import org.jgroups.conf.ClassConfigurator;
import org.jgroups.protocols.raft.AppendEntriesResponse;
import org.jgroups.protocols.raft.FtsRaftHeaders;
import org.jgroups.protocols.raft.RAFT;
import org.jgroups.protocols.raft.RaftHeader;
import org.jgroups.raft.util.CommitTable;

/**
 * jgroups-raft's {@code RAFT}, with a leader that brings a lagging follower up while the group is under load
 * (docs/group-communication.md, "Catching up"; found by chaos killall 51, where a restarted member served nothing
 * for 18 s, then was sent snapshot after snapshot). In jgroups-raft 1.1.4:
 * <ol>
 *   <li>the leader resends to followers only when its processing queue stayed empty for a whole resend interval:
 *       under a steady load never, so a follower behind stays behind until the load stops. Here a resend round also
 *       runs after processing, once per resend interval;</li>
 *   <li>a follower behind answers every new append with "entry not found", and each answer puts the leader's
 *       record of it back into single-entry mode (one entry per resend). Here such an answer is dropped when it
 *       tells the leader nothing new (the record already resends from the follower's next index), so the leader
 *       keeps sending ranges;</li>
 *   <li>a resend sends the whole range the follower lacks, again every interval until it is acknowledged. Here a
 *       resend carries at most {@link #MAX_RESEND} entries; the next goes on from what was acknowledged.</li>
 * </ol>
 * Raft tolerates lost and partial appends, so none of these changes what is committed, only how fast a follower is
 * brought up. Protocol id {@value #ID}.
 */
public class FtsRaft extends RAFT {
    static final short ID = 1970;
    static final int MAX_RESEND = 512;

    static {
        ClassConfigurator.addProtocol(ID, FtsRaft.class);
    }

    private long lastRound = System.nanoTime();
    private long rounds;
    private long repeatsDropped;

    @ManagedAttribute(description = "resend rounds run under load (the queue never idle for a resend interval)")
    public long resendRoundsUnderLoad() {
        return rounds;
    }

    @ManagedAttribute(description = "'entry not found' answers dropped as repeating what the leader knew")
    public long notFoundRepeatsDropped() {
        return repeatsDropped;
    }

    @Override
    protected void process(List<Request> q) {
        try {
            super.process(q);
        } finally {
            long now = System.nanoTime();
            if (commit_table != null && isLeader() && now - lastRound >= TimeUnit.MILLISECONDS.toNanos(resend_interval)) {
                lastRound = now;
                rounds++;
                commit_table.forEach(this::sendAppendEntriesMessage);
            }
        }
    }

    @Override
    public void handleUpRequest(Message msg, RaftHeader hdr) {
        if (hdr instanceof AppendEntriesResponse r && commit_table != null && isLeader()
                && r.currTerm() == currentTerm()) {
            long last = FtsRaftHeaders.entryNotFound(r);
            CommitTable.Entry e = last < 0 ? null : commit_table.get(msg.src());
            if (e != null && e.nextIndex() == last + 1) {
                repeatsDropped++;
                return;
            }
        }
        super.handleUpRequest(msg, hdr);
    }

    @Override
    protected void resend(Address target, long from, long to) {
        super.resend(target, from, Math.min(to, from + MAX_RESEND - 1));
    }
}
