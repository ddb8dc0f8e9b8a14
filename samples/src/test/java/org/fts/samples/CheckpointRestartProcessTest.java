package org.fts.samples;

import org.fts.testkit.ReplicaCluster;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import fts_samples.CounterHelper;
import org.fts.process.Waits;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.omg.CORBA.ORB;

/**
 * Checkpoints and compaction with {@code fts.durability=log} (docs/durability.md, "Checkpoints"): three replica
 * JVMs checkpointing every 64 KiB of log. First, one replica is killed (SIGKILL) an eighth of the way into 4000
 * FT increments and started again only after the others checkpointed and compacted their logs past it: no log
 * holds what it misses, so it is given a gap, fetches the group's state and checkpoints it. Then every replica is
 * killed at once under another 2000 increments and all start again from their checkpoints and the logs after
 * them: the values returned are exactly 4001..6000, and every counter ends at 6000. The same on the raft binding,
 * whose checkpoints are jgroups-raft's snapshots (docs/group-communication.md, "Snapshots"): there the replica
 * behind the leader's compacted log is sent a snapshot, and learns it missed entries.
 */
class CheckpointRestartProcessTest {
    private static final int CLIENTS = 20;
    /**
     * Calls per client before the replica behind comes back: 4000 calls are about four checkpoints' growth of the log
     * at 64 KiB each, however they are batched (a batch's bytes are its requests' and a little framing), so the
     * others have two checkpoints and compacted behind the older with room to spare (2000 were two at best).
     */
    private static final int FIRST_CALLS = 200;
    private static final int FIRST = CLIENTS * FIRST_CALLS;
    private static final int CALLS = 100;
    private static final int TOTAL = CLIENTS * CALLS;

    private ReplicaCluster cluster;
    private ORB orb;

    @AfterEach
    void stop() {
        if (orb != null) {
            orb.shutdown(false);
        }
        if (cluster != null) {
            cluster.close();   // SIGKILL to every replica still running, then reaped
        }
    }

    @Test
    void aReplicaBehindTheCompactedLogsFetchesTheStateAndAWholeGroupCrashRestartsFromCheckpoints()
            throws Exception {
        run(List.of(), dir -> {
            assertTrue(firstLogIndex(dir) > 1, "compacted its log behind a checkpoint: " + files(dir.resolve("log")));
            return true;
        }, dir -> !files(dir.resolve("snap")).isEmpty(),
                // no log held what it missed: it was given a gap (its log restarts after the gap's position)
                "its history restarts after [1-9]\\d* \\(a gap\\)");
    }

    @Test
    void onRaftAReplicaBehindTheCompactedLogsIsSentASnapshotAndAWholeGroupCrashRestartsFromSnapshots()
            throws Exception {
        run(List.of("-Dfts.gc=raft", "-Dfts.gc.raft.members=r0,r1,r2"),
                dir -> Files.exists(dir.resolve("raft.log").resolve("fts-snapshot.raft")),
                dir -> Files.exists(dir.resolve("raft.log").resolve("fts-snapshot.raft")),
                // the leader's log no longer held what it missed: it was sent a snapshot and learnt it missed entries
                "a snapshot installed: .*\\([1-9]\\d* entries missed\\)");
    }

    /** A check of a replica's log directory, which may read files. */
    private interface DirCheck {
        boolean holds(Path dir) throws IOException;
    }

    /**
     * @param behind what the restarted replica's log must say (a regular expression) once it serves: how it learnt
     *               that no log held what it missed
     */
    private void run(List<String> binding, DirCheck compacted, DirCheck checkpointed, String behind)
            throws Exception {
        Path data = Files.createTempDirectory(Path.of("target"), "checkpoints-").toAbsolutePath();
        String group = "cp-" + UUID.randomUUID().toString().substring(0, 6);
        List<String> options = new java.util.ArrayList<>(List.of("-Dfts.durability=log",
                "-Dfts.durability.dir=" + data.toAbsolutePath(), "-Dfts.durability.checkpoint=65536"));
        options.addAll(binding);
        cluster = new ReplicaCluster(group, 3, false, options, Path.of("target", "child-logs"));
        orb = ORB.init(new String[0], Clients.ftDefaults());
        String ref = cluster.reference("counter");

        FailoverWorkload.Result first = FailoverWorkload.run(orb, ref, FailoverWorkload.homes(CLIENTS, 3, 1),
                FIRST_CALLS, FIRST / 8, progress -> cluster.kill(2), Duration.ofSeconds(180));
        assertTrue(first.errors().isEmpty(), () -> "clients failed: " + first.errors());
        assertEquals(IntStream.rangeClosed(1, FIRST).boxed().toList(), first.sortedValues());
        Path r0 = data.resolve(group).resolve("r0");
        // compaction follows the checkpoint on the replica's own thread: wait for it, bounded
        Waits.until(() -> {
            try {
                return compacted.holds(r0);
            } catch (IOException | AssertionError notYet) {
                return false;
            }
        }, Duration.ofSeconds(30));
        assertTrue(compacted.holds(r0), "r0 compacted its log behind a checkpoint");
        cluster.restart(2, List.of());   // returns once it serves: it fetched the group's state
        awaitCounters(FIRST);
        String r2 = Files.readString(Path.of("target", "child-logs", group + "-r2.err"));
        assertTrue(java.util.regex.Pattern.compile(behind).matcher(r2).find(), "r2 restarted behind the others' "
                + "compacted logs, and its log says so (" + behind + ")");

        FailoverWorkload.Result second = FailoverWorkload.run(orb, ref, FailoverWorkload.homes(CLIENTS, 3, 1), CALLS,
                TOTAL / 2, progress -> {
                    for (int i = 0; i < 3; i++) {
                        cluster.kill(i);   // SIGKILL, and waits until the process is gone
                    }
                    for (int i = 0; i < 3; i++) {
                        cluster.relaunch(i, List.of());
                    }
                }, Duration.ofSeconds(180));
        assertTrue(second.errors().isEmpty(), () -> "clients failed: " + second.errors());
        assertEquals(IntStream.rangeClosed(FIRST + 1, FIRST + TOTAL).boxed().toList(), second.sortedValues(),
                "nothing answered lost (the group would count from less), nothing executed twice");
        awaitCounters(FIRST + TOTAL);
        for (int i = 0; i < 3; i++) {
            assertTrue(checkpointed.holds(data.resolve(group).resolve("r" + i)), "r" + i + " checkpointed");
        }
    }

    private void awaitCounters(int expected) {
        for (int i = 0; i < 3; i++) {
            int replica = i;
            Waits.await(() -> cluster.isReady(replica), Duration.ofSeconds(90), () -> "r" + replica + " to serve");
            var counter = CounterHelper.narrow(orb.string_to_object(
                    Clients.corbaloc("127.0.0.1", cluster.ports().get(i), cluster.group(), "counter")));
            Waits.await(() -> counter.value() == expected, Duration.ofSeconds(90),
                    () -> "replica r" + replica + " counter is " + counter.value() + ", expected " + expected);
        }
    }

    /** The first index the replica's log holds: the name of its oldest segment file. */
    private static long firstLogIndex(Path replicaDir) throws IOException {
        List<String> segments = files(replicaDir.resolve("log"));
        return segments.isEmpty() ? 0 : Long.parseLong(segments.get(0).replace(".log", ""));
    }

    private static List<String> files(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".log") || n.endsWith(".snap"))
                    .sorted().toList();
        }
    }
}
