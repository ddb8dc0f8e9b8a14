package org.fts.gc.raft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

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
        Path out = Files.createTempFile(Path.of("target").toAbsolutePath(), "disk-failure-", ".out");
        String java = ProcessHandle.current().info().command().orElse("java");
        Process p = new ProcessBuilder("bash", "-c", "ulimit -f 512 && exec \"$0\" -cp \"$1\" " + getClass().getName()
                + " \"$2\"", java, System.getProperty("java.class.path"), dir.resolve("raft.log").toString())
                .redirectErrorStream(true).redirectOutput(out.toFile()).start();
        try {
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the appending JVM ends by itself");
            String log = Files.readString(out);
            assertEquals(70, p.exitValue(), log);
            assertTrue(log.contains("the raft log in " + dir.resolve("raft.log")) && log.contains("failed"), log);
        } finally {
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
        }
    }
}
