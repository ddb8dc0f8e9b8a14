package org.fts.gc.raft;

import java.util.List;
import java.util.concurrent.TimeUnit;

import java.nio.ByteBuffer;

import org.jgroups.Address;
import org.jgroups.Message;
import org.jgroups.View;
import org.jgroups.annotations.ManagedAttribute;
import org.jgroups.conf.ClassConfigurator;
import org.jgroups.protocols.raft.AppendEntriesResponse;
import org.jgroups.protocols.raft.FtsRaftHeaders;
import org.jgroups.protocols.raft.LogEntry;
import org.jgroups.protocols.raft.RAFT;
import org.jgroups.protocols.raft.RaftHeader;
import org.jgroups.raft.util.CommitTable;
import org.jgroups.util.ByteArrayDataInputStream;
import org.jgroups.util.ByteArrayDataOutputStream;

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
 *       resend carries at most {@link #MAX_RESEND} entries; the next goes on from what was acknowledged;</li>
 *   <li>an answer that arrives after a later one (resends overlap) moves the leader's next index for that follower
 *       back below its match index (an assertion of jgroups-raft's, which fails with {@code -ea}, and entries sent
 *       again). Here an answer below the match index is dropped: it tells nothing new;</li>
 *   <li>a snapshot drops the log up to the commit index, so a follower only slightly behind the majority at that
 *       moment must be sent a snapshot (and its application fetch a state). Here the leader keeps the entries its
 *       followers in the view still lack, up to {@link #KEEP_BEHIND} of them ({@link #takeSnapshot}); the snapshot
 *       records its own index, and a restart applies only the log after it ({@link #initStateMachineFromLog}):
 *       applying an entry twice is not harmless (an entry skipped as out of order the first time may be next the
 *       second);</li>
 *   <li>a follower behind the compacted log was sent a snapshot on every resend round until its acknowledgement
 *       came back; here at most one a second ({@link #sendSnapshotTo}).</li>
 * </ol>
 * Raft tolerates lost and partial appends, so none of these changes what is committed, only how fast a follower is
 * brought up. Protocol id {@value #ID}.
 */
public class FtsRaft extends RAFT {
    static final short ID = 1970;
    static final int MAX_RESEND = 512;
    static final long KEEP_BEHIND = 20_000;

    static {
        ClassConfigurator.addProtocol(ID, FtsRaft.class);
    }

    private long lastRound = System.nanoTime();
    /**
     * The Raft members as RAFT's own thread last left them. RAFT changes its list in place (cleared, then filled) on
     * its runner thread, where a committed addServer/removeServer or an installed snapshot takes effect; a reader on
     * another thread could see it empty. Published after each round of processing, which is where it changes.
     */
    private volatile List<String> voters = List.of();
    private long rounds;
    private long repeatsDropped;
    private long staleDropped;
    /** When each member was last sent a snapshot (RAFT's runner thread only). */
    private final java.util.Map<Address, Long> snapshotSent = new java.util.HashMap<>();

    @ManagedAttribute(description = "resend rounds run under load (the queue never idle for a resend interval)")
    public long resendRoundsUnderLoad() {
        return rounds;
    }

    @ManagedAttribute(description = "'entry not found' answers dropped as repeating what the leader knew")
    public long notFoundRepeatsDropped() {
        return repeatsDropped;
    }

    @ManagedAttribute(description = "acknowledgements dropped as older than one already taken")
    public long staleAcksDropped() {
        return staleDropped;
    }

    /**
     * A member's latest successful answer to this member as leader: in which term, the commit index it reported (what
     * it has learned is committed), and when (RAFT's runner thread writes).
     */
    private record Answer(long term, long commit, long nanos) {
    }

    private final java.util.concurrent.ConcurrentHashMap<Address, Answer> answers =
            new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * Whether {@code member} answered this member, leading in {@code term}, at or after {@code sinceNanos}, reporting
     * a commit index of at least {@code committed}: it is alive, follows this leader, and has learned that everything
     * up to {@code committed} is committed (docs/membership.md, "present"). An answer's raw last index is not enough:
     * jgroups-raft answers a commit notice with the follower's last appended index, which may be a tail of an older
     * term that the leader's log does not hold.
     */
    public boolean answered(Address member, long term, long sinceNanos, long committed) {
        Answer a = member == null ? null : answers.get(member);
        return a != null && a.term == term && a.nanos - sinceNanos >= 0 && a.commit >= committed;
    }

    /** The Raft members now (those whose votes and appends count), safe to read from any thread. */
    public List<String> voters() {
        return voters;
    }

    /** As RAFT's; the members are published at once, before the change's caller is told it is committed. */
    @Override
    protected void _addServer(String name) {
        super._addServer(name);
        publishVoters();
    }

    @Override
    protected void _removeServer(String name) {
        super._removeServer(name);
        publishVoters();
    }

    @Override
    public RAFT members(java.util.Collection<String> list) {
        RAFT r = super.members(list);
        publishVoters();
        return r;
    }

    @Override
    public void start() throws Exception {
        super.start();   // the snapshot and the log's committed membership changes are applied here
        publishVoters();
    }

    /** Publishes the members as they are now: call on RAFT's runner thread (where they change). */
    void publishVoters() {
        List<String> now = List.copyOf(members());
        if (!now.equals(voters)) {
            voters = now;
        }
    }

    @Override
    protected void process(List<Request> q) {
        try {
            super.process(q);
        } finally {
            publishVoters();
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
            if (FtsRaftHeaders.appended(r) >= 0) {
                answers.put(msg.src(), new Answer(currentTerm(), FtsRaftHeaders.commitIndex(r), System.nanoTime()));
            }
            CommitTable.Entry e = commit_table.get(msg.src());
            long last = FtsRaftHeaders.entryNotFound(r);
            long acked = FtsRaftHeaders.appended(r);
            if (e != null && Math.max(last, acked) >= 0 && Math.max(last, acked) < e.matchIndex()) {
                staleDropped++;   // older than one taken: it would move the next index back below the match index
                return;
            }
            if (e != null && last >= 0 && e.nextIndex() == last + 1) {
                repeatsDropped++;
                return;
            }
        }
        super.handleUpRequest(msg, hdr);
    }

    /** As RAFT's, but the log is kept from the lowest index a follower in the view lacks (at most KEEP_BEHIND back). */
    @Override
    protected void takeSnapshot() throws Exception {
        if (state_machine == null) {
            throw new IllegalStateException("state machine is null");
        }
        long commit = commitIndex();
        long keepFrom = commit;
        View v = view;
        if (isLeader() && commit_table != null && v != null) {
            long[] lowest = {commit};
            commit_table.forEach((member, e) -> {
                if (v.containsMember(member)) {
                    lowest[0] = Math.min(lowest[0], e.matchIndex() + 1);
                }
            });
            keepFrom = Math.max(lowest[0], commit - KEEP_BEHIND);
        }
        keepFrom = Math.max(keepFrom, log_impl.firstAppended());   // what is dropped stays dropped
        ByteArrayDataOutputStream out = new ByteArrayDataOutputStream(4096, true);
        internal_state.writeTo(out);
        state_machine.writeContentTo(out);   // the Ledger writes the commit index, the snapshot's own
        log_impl.setSnapshot(ByteBuffer.wrap(out.buffer(), 0, out.position()));
        log_impl.truncate(keepFrom);
        num_snapshots++;
        curr_log_size = 0;
    }

    /**
     * As RAFT's, but the log is applied from the entry after the snapshot's own index, which the log may precede
     * ({@link #takeSnapshot}).
     */
    @Override
    public void initStateMachineFromLog() throws Exception {
        if (state_machine == null || state_machine_loaded) {
            return;
        }
        long from = Math.max(1, log_impl.firstAppended());
        ByteBuffer snapshot = log_impl.getSnapshot();
        if (snapshot != null) {
            ByteArrayDataInputStream in = new ByteArrayDataInputStream(snapshot);
            internal_state.readFrom(in);
            state_machine.readContentFrom(in);
            long index = state_machine instanceof Ledger l ? l.snapshotIndex() : log_impl.firstAppended();
            from = Math.max(log_impl.firstAppended(), index) + 1;
        }
        for (long i = from, to = commitIndex(); i <= to; i++) {
            LogEntry e = log_impl.get(i);
            if (e == null) {
                log.error("%s: the log holds no entry %d (commit index %d)", local_addr, i, to);
                break;
            }
            if (e.command() == null) {
                continue;
            }
            if (e.internal()) {
                executeInternalCommand(null, e.command(), e.offset(), e.length());
            } else {
                state_machine.apply(e.command(), e.offset(), e.length(), true);
            }
        }
        state_machine_loaded = true;
    }

    /**
     * As RAFT's, but at most once a second to one member: the resend rounds run every interval, and the follower's
     * acknowledgement of a snapshot takes longer than that to come back, so RAFT sent the same member snapshot after
     * snapshot, and each one it installed made its application fall behind again (chaos bridge 105: a replica's
     * state transfer abandoned and begun again for 28 s).
     */
    @Override
    protected void sendSnapshotTo(Address dest) throws Exception {
        long now = System.nanoTime();
        Long last = snapshotSent.get(dest);
        if (last != null && now - last < TimeUnit.SECONDS.toNanos(1)) {
            return;
        }
        snapshotSent.put(dest, now);
        super.sendSnapshotTo(dest);
    }

    @Override
    protected void resend(Address target, long from, long to) {
        super.resend(target, from, Math.min(to, from + MAX_RESEND - 1));
    }
}
