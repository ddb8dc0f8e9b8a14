package org.fts.gc.raft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import org.fts.process.FileLimitedJvm;
import org.jgroups.protocols.raft.LogEntries;
import org.jgroups.protocols.raft.LogEntry;
import org.junit.jupiter.api.Test;

/**
 * A raft log whose disk refuses a write stops its replica with exit 70, naming the log (docs/durability.md, "Storage
 * faults"); jgroups-raft alone prints the error and runs on. The disk is real: a JVM whose files may not grow past
 * 512 KiB ({@code ulimit -f}), so that the log's write fails as a full volume's does.
 */
class DiskFailureProcessTest {

    /** Appends 1 KiB entries to a synced log in {@code args[0]} until its disk refuses; exit 0 if it never does. */
    public static void main(String[] args) throws Exception {
        SyncedSnapshotLog log = new SyncedSnapshotLog();
        log.init(args[0], Map.of());
        log.useFsync(true);
        for (long index = 1; index < 100_000; index += 10) {
            LogEntries batch = new LogEntries();
            for (int i = 0; i < 10; i++) {
                batch.add(new LogEntry(1, new byte[1024]));
            }
            log.append(index, batch);
        }
        System.exit(0);
    }

    @Test
    void aWriteTheDiskRefusesStopsTheReplicaWithExit70NamingTheLog() throws Exception {
        Path dir = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "disk-failure-");
        FileLimitedJvm.Result r = FileLimitedJvm.run(getClass(), 512, Path.of("target").toAbsolutePath(),
                Duration.ofSeconds(60), dir.resolve("raft.log").toString());
        assertEquals(70, r.exit(), r.output());
        assertTrue(r.output().contains("the raft log in " + dir.resolve("raft.log")) && r.output().contains("failed"),
                r.output());
    }
}
