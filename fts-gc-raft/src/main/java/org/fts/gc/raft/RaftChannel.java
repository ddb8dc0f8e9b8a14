package org.fts.gc.raft;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import javax.crypto.SecretKey;

import org.fts.gc.Durability;
import org.fts.gc.FailStop;
import org.fts.gc.GroupChannel;
import org.fts.gc.GroupConfig;
import org.fts.gc.GroupException;
import org.fts.gc.GroupListener;
import org.fts.gc.MemberId;
import org.fts.gc.View;
import org.fts.gc.VoterChange;
import org.fts.gc.Voters;
import org.fts.gc.internal.DeliveryPump;
import org.fts.gc.internal.Pumps;
import org.fts.jgroups.AddressBook;
import org.fts.jgroups.BoardLink;
import org.fts.jgroups.CommandProbe;
import org.fts.jgroups.GroupSecurity;
import org.fts.jgroups.JGroupsBacked;
import org.fts.jgroups.StatusProbe;
import org.jgroups.Address;
import org.jgroups.BytesMessage;
import org.jgroups.JChannel;
import org.jgroups.Message;
import org.jgroups.Receiver;
import org.jgroups.protocols.raft.RAFT;
import org.jgroups.raft.Options;
import org.jgroups.raft.RaftHandle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A member of the raft binding (docs/group-communication.md, "The raft binding"). Broadcasts are entries of
 * jgroups-raft's log; a member delivers an entry once it is committed (on a majority of the static membership
 * {@code fts.gc.raft.members}: uniform by construction) and applied, in log order, exactly once and FIFO per
 * origin ({@link Ledger}, {@link Submitter}). The log is always on disk ({@code FileBasedLog} under {@code
 * fts.durability.dir}), synced before an append is acknowledged with {@code fts.durability=log} and left to the
 * page cache otherwise: a restarted replica replays its log from the start (its application is rebuilt), so
 * it never comes back with a history it forgot (Raft's votes and log must survive a crash). The log is
 * compacted behind jgroups-raft's snapshots, every {@code fts.durability.checkpoint} bytes: a snapshot is the
 * application's newest checkpoint and the entries applied since ({@link Retained}), written and synced before the
 * log behind it is dropped ({@link SyncedSnapshotLog}).
 *
 * <p>Views are JGroups' views. An epoch opens after each view once a leader is known and in the view, and the
 * view holds a majority of the members; its id is the leader's term and its sequencer the leader. A view
 * without a majority is not primary. Point-to-point messages are plain JGroups unicasts.
 */
final class RaftChannel implements GroupChannel, GroupChannel.Diagnostics, Receiver, JGroupsBacked {
    @Override
    public GroupChannel.Diagnostics diagnostics() {
        return this;
    }

    private static final Logger LOG = LoggerFactory.getLogger(RaftChannel.class);
    private static final long WATCH_MILLIS = 20;

    private final String stackXml;
    private final GroupConfig config;
    private final MemberId self;
    private final SecretKey groupKey;
    private final Durability durability;
    private final Path logRoot;
    private final List<String> raftMembers;
    private final long resendMillis;
    private final long heartbeatMillis;
    private final long snapshotBytes;

    private volatile DeliveryPump pump;
    private volatile JChannel channel;
    /** The figures under the jgroups binding's names (jgroups:type=fts-order): dashboards and alerts read both. */
    private final RaftOrderStats stats;
    /** How long a change waits for the members to acknowledge a new entry, which makes them present. */
    static final long PRESENT_MILLIS = 2000;
    /** Longest a change holds this member's one-change-at-a-time slot (the operator's command waits 30 s). */
    static final long CHANGE_BOUND_SECONDS = 60;
    private volatile RAFT raft;
    /** The change of the voters this member (the leader) ordered and has not seen committed yet, or null. */
    private volatile CompletableFuture<Voters> changing;
    private volatile Submitter submitter;
    private volatile View view;
    /** The last JGroups view this member accepted, for what a new one adds. */
    private volatile org.jgroups.View accepted;
    private volatile boolean closed;
    private volatile boolean replaying;
    private final AddressBook addresses = new AddressBook();
    private volatile ScheduledExecutorService watch;
    private volatile EpochWatch epochs;
    private volatile RaftHandle handle;
    private volatile RaftReads reads;
    /** The whiteboard: entries ride on direct messages, and on a refresh multicast of their own. */
    private final BoardLink board;

    RaftChannel(String stackXml, GroupConfig config, MemberId self, SecretKey groupKey, Durability durability,
                Path logRoot, List<String> raftMembers, long resendMillis, long heartbeatMillis,
                long snapshotBytes) {
        this.heartbeatMillis = heartbeatMillis;
        this.snapshotBytes = snapshotBytes;
        this.board = new BoardLink(self);
        this.stackXml = stackXml;
        this.config = config;
        this.self = self;
        this.groupKey = groupKey;
        this.durability = durability;
        this.logRoot = logRoot;
        this.raftMembers = List.copyOf(raftMembers);
        this.resendMillis = resendMillis;
        this.stats = new RaftOrderStats(self.name(), this::raftVoters);
    }

    @Override
    public synchronized void join(String group, GroupListener listener) {
        if (closed || channel != null) {
            throw new GroupException(self + ": a channel joins once");
        }
        EpochWatch[] watched = new EpochWatch[1];
        DeliveryPump p = new DeliveryPump(self.name(), listener, config.maxBacklog(), () -> watched[0].unsynced());
        EpochWatch watcher = new EpochWatch(self, this::raftVoters, p);
        watched[0] = watcher;
        epochs = watcher;
        pump = p;
        p.start();
        java.util.concurrent.atomic.AtomicReference<Ledger> ledgerOf = new java.util.concurrent.atomic.AtomicReference<>();
        Ledger ledger = new Ledger(self.toString(), new Ledger.Sink() {
            @Override
            public void deliver(String origin, byte[] payload) {
                watcher.deliver(new MemberId(origin), payload, replaying);
            }

            @Override
            public void applied(String origin, long oseq) {
                RaftReads r = reads;
                if (r != null) {
                    r.applied(ledgerOf.get().applied());
                }
                Submitter s = submitter;
                if (s != null && origin.equals(self.name())) {
                    s.applied(oseq);
                }
            }

            @Override
            public void checkpoint(org.fts.gc.Checkpoint checkpoint) {
                watcher.checkpoint(checkpoint);
            }

            @Override
            public boolean mayRestore() {
                return watcher.mayRestore();
            }

            @Override
            public void restore(long position, byte[] state) {
                watcher.restore(position, state);
            }

            @Override
            public void skipped(long missed) {
                watcher.skipped(missed);
            }

            @Override
            public void snapshots(boolean possible) {
                RAFT r = raft;
                if (r != null) {   // on RAFT's thread, which reads it
                    r.maxLogSize(possible ? snapshotBytes : Long.MAX_VALUE);
                }
            }
        }, new Retained(self.toString(), snapshotBytes / 2, 4 * snapshotBytes), () -> {
            RAFT r = raft;
            return r == null ? 0 : r.commitIndex();
        });
        ledgerOf.set(ledger);
        try {
            JChannel ch = new JChannel(new ByteArrayInputStream(stackXml.getBytes(StandardCharsets.UTF_8)));
            ch.setName(self.name());
            if (groupKey != null) {
                GroupSecurity.install(ch, groupKey);
            }
            RAFT r = ch.getProtocolStack().findProtocol(RAFT.class);
            Path dir = logRoot.resolve(group).resolve(self.replica());
            org.fts.log.AtomicFiles.createDirectories(dir);
            r.raftId(self.replica()).members(raftMembers).logClass(SyncedSnapshotLog.class.getName())
                    .logDir(dir.toString()).logPrefix("raft").logUseFsync(durability.log())
                    .maxLogSize(Long.MAX_VALUE)   // until the application saved a checkpoint (Ledger.Sink.snapshots)
                    .resendInterval(heartbeatMillis)
                    // Not send_commits_immediately: every AppendEntries response then sends a commit notice to every
                    // follower, each answered again; under GOA load that storm filled RAFT's processing queue
                    // (49 calls in 5 s against 8,848 without it; docs/group-communication.md).
                    .sendCommitsImmediately(false);
            RaftHandle handle = new RaftHandle(ch, ledger);
            this.handle = handle;
            this.reads = new RaftReads(p, () -> handle.setAsync(Ledger.READ_INDEX, 0, Ledger.READ_INDEX.length));
            stats.reads(reads);
            raft = r;
            channel = ch;
            submitter = new Submitter(self.name(), entry -> handle.setAsync(entry, 0, entry.length,
                    Options.create(true)), resendMillis);
            ch.setReceiver(this);
            // A restart without a synced log (fts.durability=memory) fetches the state from a live replica rather than
            // replay the whole history (it grew with the run, and a replay at full load never caught up: chaos kill
            // seed 66); with a synced log it replays, for after a whole-group power loss nobody else has a state.
            if (!durability.log() && hasLog(dir)) {
                watcher.restartedInMemory();
            }
            replaying = true;   // connect() replays the log up to its commit index before it returns
            try {
                ch.connect(group);
            } finally {
                replaying = false;
            }
            long sameName = ch.getView().getMembers().stream().filter(a -> AddressBook.name(a).equals(self)).count();
            if (sameName > 1) {
                throw new GroupException("member " + self + " is already in group " + group);
            }
            List<String> members = raftVoters();
            if (members.contains(self.replica())) {
                LOG.info("{}: raft member {} of {}, log in {} (fsync {}), term {}, commit index {}", self,
                        self.replica(), members, dir, durability.log(), r.currentTerm(), r.commitIndex());
            } else {   // fts.gc.raft.members, or the membership its log holds, does not name it
                LOG.info("{}: a learner: replica {} is not among the raft members {}; it takes the state and serves, "
                        + "and counts toward no majority until it is added (bin/fts members add {}); log in {}", self,
                        self.replica(), members, self.replica(), dir);
            }
        } catch (GroupException e) {
            close();
            throw e;
        } catch (Exception e) {
            close();
            throw new GroupException(self + ": cannot join group " + group + ": " + e.getMessage(), e);
        }
        submitter.start();
        stats.register(raft, group + "/" + self.name());
        ScheduledExecutorService w = Executors.newSingleThreadScheduledExecutor(FailStop.threads("fts-raft-watch-"
                + self));
        w.scheduleWithFixedDelay(this::watchLeader, WATCH_MILLIS, WATCH_MILLIS, TimeUnit.MILLISECONDS);
        board.start(channel);
        watch = w;
    }

    // ------------------------------------------------------------------ JGroups receiver

    @Override
    public void viewAccepted(org.jgroups.View v) {
        if (v.getMembers().stream().noneMatch(a -> AddressBook.name(a).equals(self))) {
            return;
        }
        View converted = addresses.install(v, self);
        view = converted;
        org.jgroups.View before = accepted;
        accepted = v;
        board.board().viewChanged(converted);
        pump.view(converted);
        RAFT r = raft;
        RaftHandle h = handle;
        // only a view that adds members: after a leave the no-op tells nobody anything, and appending it while a
        // member is away lets a snapshot compact what that member lacks, so that its restart is sent a snapshot and
        // its application fetches the whole state (RaftSnapshotTest, the restart on its own snapshot: once in CI)
        boolean adds = before == null || v.getMembers().stream().anyMatch(a -> !before.containsMember(a));
        if (adds && r != null && h != null && r.isLeader()) {
            try {   // its AppendEntries tell a merged member the leader and the term (Ledger.NOOP)
                h.setAsync(Ledger.NOOP, 0, Ledger.NOOP.length, Options.create(true));
            } catch (Exception e) {
                LOG.debug("{}: no-op after view {} not appended: {}", self, converted.id(), e.toString());
            }
        }
        watchLeader();
    }

    @Override
    public void receive(Message msg) {
        DeliveryPump p = pump;
        if (p != null && msg.getSrc() != null && !board.received(msg)) {
            p.direct(AddressBook.name(msg.getSrc()), msg.getArray());
        }
    }

    private void watchLeader() {
        EpochWatch e = epochs;
        if (e != null && !closed) {
            e.check(view, raft);
            stats.watch();
        }
        RaftReads r = reads;
        if (r != null) {
            r.expire(System.nanoTime());
        }
    }

    /** Before the first epoch this member refuses; then a read-index entry of the log confirms (RaftReads). */
    @Override
    public void readBarrier(org.fts.gc.ReadBarrier barrier) {
        RaftReads r = reads;
        EpochWatch e = epochs;
        if (r == null || closed) {
            throw new GroupException(self + ": no read barrier: channel is " + (closed ? "closed" : "not joined"));
        }
        if (!e.opened()) {
            onDeliveryThread(() -> barrier.refused("no epoch opened here yet"));
            return;
        }
        r.request(barrier);
    }

    private static boolean hasLog(Path dir) {
        try (var files = java.nio.file.Files.list(dir)) {
            return files.findAny().isPresent();
        } catch (java.io.IOException e) {
            return false;
        }
    }

    // ------------------------------------------------------------------ GroupChannel

    @Override
    public void abcast(byte[] payload) {
        Submitter s = submitter;
        if (s == null || closed) {
            throw new GroupException(self + ": cannot broadcast: channel is " + (closed ? "closed" : "not joined"));
        }
        s.submit(payload);
    }

    @Override
    public void send(MemberId to, byte[] payload) {
        JChannel ch = channel;
        Address a = addresses.get(to);
        if (ch == null || closed) {
            throw new GroupException(self + ": cannot send: channel is " + (closed ? "closed" : "not joined"));
        }
        if (a == null) {
            throw new GroupException(to + " is not in the current view of " + self);
        }
        try {
            ch.send(board.unicast(new BytesMessage(a, payload), to));
        } catch (Exception e) {
            LOG.debug("{}: send to {} failed: {}", self, to, e.toString());
        }
    }

    /** The application installed a state after a gap (a restart in memory mode) or a shed: its epochs say synced. */
    @Override
    public void synced() {
        EpochWatch e = epochs;
        if (e != null) {
            e.synced();
        }
    }

    @Override
    public MemberId self() {
        return self;
    }

    /** The Raft members now: RAFT's, once it started (its log may have changed them), else fts.gc.raft.members. */
    private List<String> raftVoters() {
        List<String> now = raft instanceof FtsRaft f ? f.voters() : List.of();
        return now.isEmpty() ? raftMembers : now;
    }

    @Override
    public Voters voters() {
        return Voters.of(raftVoters());
    }

    /**
     * Through jgroups-raft's own membership entries (addServer/removeServer: committed by a majority, applied in log
     * order on every member, kept in its log and snapshots), at the leader only, one change at a time: a change this
     * leader ordered is refused until it is committed, and none is ordered before the leader committed an entry of
     * its own term (the no-op below: Raft's fix for single-server changes across leaders, docs/membership.md). A
     * member counts as present only if, within {@link #PRESENT_MILLIS}, it answered this leader in the same term
     * reporting a commit index at or past that no-op ({@link FtsRaft#answered}): a member killed a moment ago is
     * still in the JGroups view until failure detection excludes it, and a change counted on it could leave the group
     * without a majority of live voters (found by the first run of MembershipProcessTest's voters test). Other
     * refusals: {@link Voters#refusal}.
     */
    @Override
    public CompletableFuture<Voters> changeVoters(VoterChange change) {
        RAFT r = raft;
        RaftHandle h = handle;
        ScheduledExecutorService timer = watch;
        if (!(r instanceof FtsRaft leader) || h == null || timer == null || closed) {
            return CompletableFuture.failedFuture(new GroupException(self + ": not joined"));
        }
        CompletableFuture<Voters> done = new CompletableFuture<>();
        synchronized (this) {
            if (!r.isLeader()) {
                Address l = r.leader();
                return refused("replica " + self.replica() + " is not the raft leader (the leader is "
                        + (l == null ? "not known yet" : AddressBook.name(l).replica())
                        + "): send the change to the leader, whose fts status says role=leader");
            }
            CompletableFuture<Voters> prior = changing;
            if (prior != null && !prior.isDone()) {
                return refused("another change of the voters is in flight: wait until it is committed (bin/fts "
                        + "members list)");
            }
            String why = voters().refusal(change, view);   // what the view alone rules out, before the round
            if (why != null) {
                return refused(why);
            }
            // bounded: a change whose leader lost its place may never be answered by jgroups-raft, and must not
            // hold this member's slot for good (the change may still commit: the refusals read the live voters)
            changing = done.orTimeout(CHANGE_BOUND_SECONDS, TimeUnit.SECONDS);
        }
        long term = r.currentTerm();
        long since = System.nanoTime();
        // the no-op's index or later, read on RAFT's runner thread as the no-op is applied (committed)
        java.util.concurrent.atomic.AtomicLong committedNoop = new java.util.concurrent.atomic.AtomicLong(-1);
        CompletableFuture<byte[]> noop;
        try {
            noop = h.setAsync(Ledger.NOOP, 0, Ledger.NOOP.length, Options.create(true));
            noop.thenRun(() -> committedNoop.set(leader.lastAppended()));
        } catch (Exception e) {
            done.completeExceptionally(new GroupException(self + ": " + change + " not ordered: " + e.getMessage(), e));
            return done;
        }
        long deadline = since + TimeUnit.MILLISECONDS.toNanos(PRESENT_MILLIS);
        Runnable[] poll = new Runnable[1];
        poll[0] = () -> {
            try {
                if (!r.isLeader() || r.currentTerm() != term) {   // lost, perhaps won back in a later term
                    done.completeExceptionally(new GroupException("refused: replica " + self.replica() + " stopped "
                            + "leading in term " + term + " before the change was ordered; send it to the new leader"));
                    return;
                }
                View v = view;
                long target = committedNoop.get();
                List<MemberId> present = v.members().stream().filter(m -> m.equals(self)
                        || target >= 0 && leader.answered(addresses.get(m), term, since, target)).toList();
                Voters now = voters();
                String why = now.refusal(change, new View(v.id(), present, self));
                if (noop.isCompletedExceptionally()) {
                    why = "this leader's no-op was not committed (it stopped leading?)";
                } else if (why == null && target < 0) {
                    why = "this leader has not committed an entry of its own term within " + PRESENT_MILLIS + " ms";
                }
                boolean everyone = target >= 0 && present.size() == v.members().size();
                if (why != null && !everyone && System.nanoTime() < deadline) {
                    timer.schedule(poll[0], 20, TimeUnit.MILLISECONDS);   // not everyone has answered yet
                    return;
                }
                if (why != null) {
                    done.completeExceptionally(new GroupException("refused: " + why + " (present: the members that "
                            + "learned this leader's no-op is committed within " + PRESENT_MILLIS + " ms)"));
                    return;
                }
                Voters next = now.after(change);
                LOG.info("{}: ordering the voters' change '{}' in term {}: {} -> {}", self, change, term, now, next);
                (change.add() ? r.addServer(change.replica()) : r.removeServer(change.replica())).whenComplete(
                        (ok, err) -> {
                            if (err != null) {
                                done.completeExceptionally(new GroupException(self + ": " + change + " failed: "
                                        + err.getMessage(), err));
                            } else {   // on RAFT's runner, where the change was just applied (and published)
                                Voters after = voters();
                                LOG.info("{}: the voters' change '{}' is committed: voters {}", self, change, after);
                                done.complete(after);
                            }
                        });
            } catch (Exception e) {
                done.completeExceptionally(new GroupException(self + ": " + change + " not ordered: " + e.getMessage(),
                        e));
            }
        };
        timer.execute(poll[0]);
        return done;
    }

    private static CompletableFuture<Voters> refused(String why) {
        return CompletableFuture.failedFuture(new GroupException("refused: " + why));
    }

    @Override
    public Map<String, String> standing() {
        RAFT r = raft;
        if (r == null) {
            return Map.of();
        }
        View v = view;
        return Map.of("role", r.isLeader() ? "leader" : raftVoters().contains(self.replica()) ? "follower" : "learner", "view", v == null ? "-" : Long.toString(v.id()),
                "epoch", "term " + r.currentTerm(), "delivered", Long.toString(r.commitIndex()),
                "committed", Long.toString(r.commitIndex()));
    }

    @Override
    public void exposeStatus(java.util.function.Supplier<Map<String, String>> status) {
        StatusProbe.register(channel, this::standing, status);
    }

    @Override
    public void exposeCommands(java.util.function.Function<String, java.util.Map<String, String>> commands) {
        CommandProbe.register(channel, commands);
    }

    @Override
    public org.fts.gc.Whiteboard whiteboard() {
        return board.board();
    }

    @Override
    public View view() {
        return view;
    }

    @Override
    public int pendingDeliveries() {
        return Pumps.pending(pump);
    }

    @Override
    public long pendingBytes() {
        return Pumps.pendingBytes(pump);
    }

    @Override
    public long fellBehind() {
        return Pumps.fellBehind(pump);
    }

    @Override
    public boolean replaysItsLog() {
        return true;
    }

    @Override
    public void onDeliveryThread(Runnable task) {
        Pumps.task(pump, closed, self, task);
    }

    @Override
    public boolean isDeliveryThread() {
        return Pumps.isDeliveryThread(pump);
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        stats.unregister();
        board.stop();
        ScheduledExecutorService w = watch;
        if (w != null) {
            w.shutdownNow();
        }
        Submitter s = submitter;
        if (s != null) {
            s.close();
        }
        DeliveryPump p = pump;
        if (p != null) {
            p.stop(1000);
        }
        JChannel ch = channel;
        if (ch != null) {
            ch.close();
        }
    }

    @Override
    public JChannel jchannel() {
        return channel;
    }

    @Override
    public String toString() {
        return "RaftChannel[" + self + "]";
    }
}
