package org.fts.gc.raft;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.jgroups.protocols.raft.FileBasedLog;
import org.jgroups.protocols.raft.LogEntries;
import org.jgroups.protocols.raft.LogEntry;
import org.junit.jupiter.api.Test;

/**
 * The raft binding's log (docs/group-communication.md, "Snapshots"): jgroups-raft 1.1.4's {@code FileBasedLog}
 * truncated before anything is committed (a follower's first append is larger than the snapshot interval) fails
 * every later append, and this log does not; a snapshot written is read back whole, with no temporary file left;
 * a snapshot installed from the leader leaves a log that reads back (jgroups-raft's alone reads back empty).
 */
class SyncedSnapshotLogTest {

    private static LogEntries entries(int n) {
        LogEntries e = new LogEntries();
        for (int i = 0; i < n; i++) {
            e.add(new LogEntry(1, new byte[100]));
        }
        return e;
    }

    private Path dir;

    private <T extends FileBasedLog> T opened(T log) throws Exception {
        dir = Files.createTempDirectory(Path.of("target"), "synced-log-").resolve("raft.log");
        log.init(dir.toString(), Map.of());
        return log;
    }

    @Test
    void jgroupsRaftsFileLogTruncatedBeforeTheFirstCommitFailsEveryLaterAppend() throws Exception {
        FileBasedLog plain = opened(new FileBasedLog());
        plain.append(1, entries(513));
        plain.truncate(0);   // RAFT.takeSnapshot() truncates at the commit index, 0 here
        assertThrows(IllegalStateException.class, () -> plain.append(514, entries(1)), "the upstream bug");
        plain.close();
    }

    @Test
    void thisLogSkipsATruncationBeforeTheFirstCommitAndAppendsOn() throws Exception {
        SyncedSnapshotLog log = opened(new SyncedSnapshotLog());
        log.append(1, entries(513));
        log.truncate(0);
        assertEquals(514, log.append(514, entries(1)));
        log.commitIndex(400);
        log.truncate(400);
        assertEquals(400, log.firstAppended());
        assertEquals(515, log.append(515, entries(1)));
        log.close();
    }

    @Test
    void aSnapshotIsReadBackWholeAndNoTemporaryFileRemains() throws Exception {
        SyncedSnapshotLog log = opened(new SyncedSnapshotLog());
        byte[] first = new byte[70_000];
        first[69_999] = 7;
        log.setSnapshot(ByteBuffer.wrap(first));
        byte[] second = {1, 2, 3};
        log.setSnapshot(ByteBuffer.wrap(second));
        ByteBuffer back = log.getSnapshot();
        byte[] read = new byte[back.remaining()];
        back.get(read);
        assertArrayEquals(second, read);
        log.close();
        try (var files = Files.list(dir)) {
            assertFalse(files.anyMatch(p -> p.getFileName().toString().endsWith(".tmp")), "no temporary file left");
        }
    }

    /** A follower installs the leader's snapshot (index 10, term 2), appends 11 and 12, and restarts. */
    private <T extends FileBasedLog> T installedAndReopened(FileBasedLog first, T again) throws Exception {
        return installedAndReopened(first, again, true);
    }

    private <T extends FileBasedLog> T installedAndReopened(FileBasedLog first, T again, boolean snapshot)
            throws Exception {
        FileBasedLog log = opened(first);
        if (snapshot) {   // as an older FTS left it: RAFT writes the snapshot, then reinitializes the log
            Files.write(dir.resolve(SyncedSnapshotLog.SNAPSHOT), new byte[] {1, 2, 3});
        }
        log.append(1, entries(5));
        log.commitIndex(5);
        log.reinitializeTo(10, new LogEntry(2, null));
        LogEntries after = new LogEntries();
        after.add(new LogEntry(3, Ledger.encode("r0#a", 11, new byte[100])));
        after.add(new LogEntry(3, Ledger.encode("r0#a", 12, new byte[100])));
        log.append(11, after);
        log.commitIndex(12);
        log.close();
        again.init(dir.toString(), Map.of());
        return again;
    }

    @Test
    void jgroupsRaftsLogReadsBackEmptyAfterASnapshotFromTheLeader() throws Exception {
        FileBasedLog log = installedAndReopened(new FileBasedLog(), new FileBasedLog());
        assertEquals(0, log.lastAppended(), "the upstream bug: entries 11 and 12 are gone");
        log.close();
    }

    @Test
    void thisLogReadsBackItsEntriesAfterASnapshotFromTheLeader() throws Exception {
        SyncedSnapshotLog log = installedAndReopened(new SyncedSnapshotLog(), new SyncedSnapshotLog());
        assertEquals(10, log.firstAppended());
        assertEquals(12, log.lastAppended());
        assertEquals(2, log.get(10).term(), "the snapshot's last entry keeps its term");
        assertEquals(3, log.get(12).term());
        log.close();
    }

    @Test
    void aLogWrittenByJGroupsRaftAloneIsMendedAtTheStart() throws Exception {
        SyncedSnapshotLog log = installedAndReopened(new FileBasedLog(), new SyncedSnapshotLog());
        assertEquals(10, log.firstAppended());
        assertEquals(12, log.lastAppended());
        assertEquals(3, log.get(10).term(), "the term of the record after it: the true one was never written");
        assertFalse(Files.exists(dir.resolve(Quarantine.FILE)), "not a damaged log: no quarantine");
        log.close();
    }

    @Test
    void withoutASnapshotAZeroedFirstRecordIsDamageNotMended() throws Exception {
        SyncedSnapshotLog log = installedAndReopened(new FileBasedLog(), new SyncedSnapshotLog(), false);
        assertEquals(0, log.lastAppended(), "cut before the damaged first record");
        assertEquals(12, Quarantine.read(dir), "quarantined until the log reaches 12 again");
        log.close();
    }

    @Test
    void anAppendFailingUnderAShutdownsInterruptDoesNotStopTheReplica() throws Exception {
        SyncedSnapshotLog log = opened(new SyncedSnapshotLog());
        log.append(1, entries(3));
        java.util.List<Throwable> stops = new java.util.concurrent.CopyOnWriteArrayList<>();
        org.fts.gc.FailStopHook.Action was = org.fts.gc.FailStopHook.replace((t, cause) -> stops.add(cause));
        try {
            // JChannel.close() stops RAFT's thread by interrupting it: its write fails (ClosedByInterruptException),
            // and jgroups-raft returns as from a failed disk
            Thread.currentThread().interrupt();
            long last = log.append(4, entries(1));
            assertTrue(Thread.interrupted(), "still interrupted");
            assertEquals(3, last, "the write failed under the interrupt");
            assertEquals(java.util.List.of(), stops, "a shutdown's interrupt is not a failed disk");
        } finally {
            Thread.interrupted();
            org.fts.gc.FailStopHook.replace(was);
            log.close();
        }
    }
}
