package org.fts.gc.raft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.UUID;

import org.fts.gc.Checkpoint;
import org.fts.gc.Epoch;
import org.fts.gc.GroupChannel;
import org.fts.gc.GroupChannels;
import org.fts.gc.GroupListener;
import org.fts.gc.MemberId;
import org.fts.gc.View;
import org.fts.process.Waits;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Snapshots of the raft binding (docs/group-communication.md, "Snapshots"), three members in this JVM with a
 * snapshot every 64 KiB of log: a member restarted on its synced log goes on from its snapshot (its application
 * restores the checkpointed state, then gets only what followed) and ends with the same history as the others; a
 * member the leader's compacted log left behind is sent a snapshot and told how much it missed; under an
 * application that takes no checkpoints no member snapshots or compacts its log (so none can need a snapshot
 * nobody can give), and a restart replays the whole history.
 */
class RaftSnapshotTest {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final String PAD = "x".repeat(200);
    private final List<GroupChannel> opened = new ArrayList<>();
    private Path data;
    private String group;

    @BeforeEach
    void fresh() throws Exception {
        data = Files.createTempDirectory(Path.of("target"), "raft-snap-");
        group = "snap-" + UUID.randomUUID().toString().substring(0, 8);
    }

    @AfterEach
    void close() {
        for (int i = opened.size() - 1; i >= 0; i--) {
            opened.get(i).close();
        }
    }

    /** A listener whose state is the list of texts delivered; it checkpoints and restores that list. */
    static final class History implements GroupListener {
        private final boolean checkpoints;
        final List<String> texts = new ArrayList<>();
        long restoredAt = -1;
        long missed;
        int epochs;

        History(boolean checkpoints) {
            this.checkpoints = checkpoints;
        }

        @Override
        public synchronized void deliver(MemberId sender, byte[] payload) {
            texts.add(new String(payload, StandardCharsets.UTF_8));
        }

        @Override
        public void viewAccepted(View view) {
        }

        @Override
        public synchronized void epochOpened(Epoch epoch) {
            epochs++;
        }

        @Override
        public synchronized void fellBehind(long missed) {
            this.missed += missed;
        }

        @Override
        public synchronized void checkpointDue(Checkpoint checkpoint) {
            if (!checkpoints) {
                checkpoint.skip("this one does not");
                return;
            }
            checkpoint.save(String.join("\n", texts).getBytes(StandardCharsets.UTF_8));
        }

        @Override
        public synchronized void restore(long position, byte[] state) {
            texts.clear();
            String s = new String(state, StandardCharsets.UTF_8);
            if (!s.isEmpty()) {
                texts.addAll(List.of(s.split("\n")));
            }
            restoredAt = position;
        }

        synchronized List<String> texts() {
            return List.copyOf(texts);
        }

        synchronized int size() {
            return texts.size();
        }
    }

    private record Member(GroupChannel channel, History history) {
    }

    private Member join(String replica, boolean checkpoints) {
        Properties p = new Properties();
        p.setProperty("fts.gc", "raft");
        p.setProperty("fts.jgroups.stack", "udp");
        p.setProperty("fts.gc.raft.members", "r0,r1,r2");
        p.setProperty("fts.group.size", "3");
        p.setProperty("fts.durability", "log");
        p.setProperty("fts.durability.dir", data.toAbsolutePath().toString());
        p.setProperty("fts.durability.checkpoint", String.valueOf(64 << 10));
        GroupChannel ch = GroupChannels.create(p, replica + "#" + UUID.randomUUID().toString().substring(0, 4));
        opened.add(ch);
        History h = new History(checkpoints);
        ch.join(group, h);
        return new Member(ch, h);
    }

    private List<Member> three(boolean checkpoints) {
        List<Member> all = List.of(join("r0", checkpoints), join("r1", checkpoints), join("r2", checkpoints));
        for (Member m : all) {
            Waits.await(() -> m.history().epochs > 0, WAIT, () -> m.channel().self() + " opens an epoch");
        }
        return all;
    }

    private static void send(Member m, int from, int to) {
        for (int i = from; i < to; i++) {
            m.channel().abcast((m.channel().self().replica() + ":" + i + ":" + PAD).getBytes(StandardCharsets.UTF_8));
        }
    }

    private void awaitSize(Member m, int n) {
        Waits.await(() -> m.history().size() >= n, WAIT, () -> m.channel().self() + " holds " + n + " texts, has "
                + m.history().size() + " (missed " + m.history().missed + "); raft: " + rafts());
    }

    /** Each open member's raft state, for a wait that timed out. */
    private String rafts() {
        StringBuilder b = new StringBuilder();
        for (GroupChannel ch : opened) {
            org.jgroups.protocols.raft.RAFT r = RaftChannelTest.raftOf(ch);
            if (r != null) {
                b.append("\n  ").append(ch.self()).append(r.isLeader() ? " leader" : " follower").append(" term ")
                        .append(r.currentTerm()).append(" first ").append(r.log() == null ? -1 : r.log().firstAppended())
                        .append(" last ").append(r.lastAppended()).append(" commit ").append(r.commitIndex())
                        .append(" view ").append(ch.view());
                if (r.isLeader() && r.commitTable() != null) {
                    b.append(" table ").append(r.commitTable());
                }
            }
        }
        return b.toString();
    }

    private Path snapshot(String replica) {
        return data.resolve(group).resolve(replica).resolve("raft.log").resolve(SyncedSnapshotLog.SNAPSHOT);
    }

    @Test
    void aMemberRestartedOnItsSnapshotRestoresTheStateAndGetsOnlyWhatFollowed() {
        List<Member> all = three(true);
        send(all.get(0), 0, 1500);   // ~330 KiB of entries: several snapshots
        awaitSize(all.get(2), 1500);
        all.get(2).channel().close();
        assertTrue(Files.exists(snapshot("r2")), "r2 took a snapshot");

        Member again = join("r2", true);
        send(all.get(1), 0, 20);
        awaitSize(all.get(0), 1520);
        awaitSize(again, 1520);
        assertTrue(again.history().restoredAt > 0, "its application restored the snapshot's state");
        assertEquals(all.get(0).history().texts(), again.history().texts(), "one history, nothing twice");
    }

    @Test
    void aMemberBehindTheLeadersCompactedLogIsSentASnapshotAndToldWhatItMissed() {
        List<Member> all = three(true);
        send(all.get(0), 0, 100);
        awaitSize(all.get(2), 100);
        all.get(2).channel().close();
        send(all.get(0), 100, 1600);   // the others snapshot and drop the log r2 misses
        awaitSize(all.get(1), 1600);
        Waits.await(() -> Files.exists(snapshot("r0")) && Files.exists(snapshot("r1")), WAIT, () -> "r0, r1 snapshot");

        Member again = join("r2", true);
        List<Member> now = List.of(all.get(0), all.get(1), again);
        Waits.await(() -> again.history().missed > 0 || again.history().restoredAt >= 0, WAIT,
                () -> "r2 is sent a snapshot; " + raftState(now));
        send(all.get(1), 0, 20);
        Waits.await(() -> again.history().texts().stream().filter(t -> t.startsWith("r1:")).count() == 20, WAIT,
                () -> "r2 delivers what follows the snapshot");
        List<String> got = again.history().texts();
        assertEquals(got.size(), got.stream().distinct().count(), "nothing delivered twice: " + got.size());
        assertTrue(again.history().missed > 0, "told it missed entries: " + again.history().missed);
        assertFalse(got.contains("r0:500:" + PAD), "the snapshot's entries are not delivered to it");
    }

    /** Each member's delivered count and its RAFT's leader, log bounds and commit index: what a timeout shows. */
    private static String raftState(List<Member> members) {
        StringBuilder s = new StringBuilder();
        for (Member m : members) {
            org.jgroups.protocols.raft.RAFT r = RaftChannelTest.raftOf(m.channel());
            s.append(String.format("[%s: delivered %d, missed %d, restoredAt %d; leader %s, log %d..%d, commit %d] ",
                    m.channel().self(), m.history().size(), m.history().missed, m.history().restoredAt, r.leader(),
                    r.log().firstAppended(), r.log().lastAppended(), r.commitIndex()));
        }
        return s.toString();
    }

    @Test
    void anApplicationThatTakesNoCheckpointsKeepsTheWholeLogAndARestartReplaysIt() {
        List<Member> all = three(false);
        send(all.get(0), 0, 1500);
        awaitSize(all.get(2), 1500);
        for (Member m : all) {
            assertEquals(Long.MAX_VALUE, RaftChannelTest.raftOf(m.channel()).maxLogSize(), "no snapshot is due");
        }
        all.get(2).channel().close();
        for (String r : List.of("r0", "r1", "r2")) {
            assertFalse(Files.exists(snapshot(r)), r + " took no snapshot: its log holds the whole history");
        }

        Member again = join("r2", false);
        awaitSize(again, 1500);
        assertEquals(-1, again.history().restoredAt);
        assertEquals(all.get(0).history().texts(), again.history().texts(), "its whole log replayed");
    }
}
