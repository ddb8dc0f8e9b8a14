package org.fts.gc.raft;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.jgroups.protocols.raft.LogEntries;
import org.jgroups.protocols.raft.LogEntry;
import org.junit.jupiter.api.Test;

/**
 * Storage faults under the raft binding (docs/durability.md, "Storage faults"): jgroups-raft 1.1.4's file log checks
 * record headers only and ends the log at the first one that does not check. Here a damaged record followed by valid
 * ones (in its header or in an FTS entry's payload, whose checksum {@link Ledger} verifies) is damage, not a torn tail:
 * the log is cut before it, the commit index lowered to what is left, and the member quarantined until its log reaches
 * the last index it held; a damaged last record is a torn tail; a damaged snapshot is an error naming it.
 */
class RaftLogDamageTest {
    private static final int ENTRY = 64;
    private Path dir;

    /** Entries 1..n of FTS's format, each {@code ENTRY} bytes of payload, committed up to {@code commit}. */
    private SyncedSnapshotLog written(int n, long commit) throws Exception {
        dir = Files.createTempDirectory(Path.of("target"), "raft-damage-").resolve("raft.log");
        SyncedSnapshotLog log = new SyncedSnapshotLog();
        log.init(dir.toString(), Map.of());
        LogEntries e = new LogEntries();
        for (int i = 1; i <= n; i++) {
            e.add(new LogEntry(1, Ledger.encode("r0#a", i, new byte[ENTRY])));
        }
        log.append(1, e);
        log.commitIndex(commit);
        return log;
    }

    private SyncedSnapshotLog reopened() throws Exception {
        SyncedSnapshotLog log = new SyncedSnapshotLog();
        log.init(dir.toString(), Map.of());
        return log;
    }

    /** The offset of record {@code index}'s first payload byte (records are all the same size here). */
    private long payloadOf(long index) {
        int record = RaftLogCheck.HEADER + Ledger.encode("r0#a", 1, new byte[ENTRY]).length;
        return (index - 1) * record + RaftLogCheck.HEADER;
    }

    private void flip(long offset) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(dir.resolve(RaftLogCheck.FILE).toFile(), "rw")) {
            f.seek(offset);
            int b = f.read();
            f.seek(offset);
            f.write(b ^ 0x5a);
        }
    }

    @Test
    void aDamagedPayloadWithValidRecordsAfterItIsCutAndTheMemberQuarantinedUntilItsLogIsBack() throws Exception {
        written(100, 90).close();
        flip(payloadOf(40) + 30);
        SyncedSnapshotLog log = reopened();
        assertEquals(39, log.lastAppended(), "cut before the damaged record, not at it nor after it");
        assertEquals(39, log.commitIndex(), "the commit index lowered to what is left");
        assertTrue(log.quarantined(), "it held up to 100: it votes again only once its log is back there");
        assertEquals(100, Quarantine.read(dir));
        LogEntries again = new LogEntries();
        for (int i = 40; i <= 100; i++) {
            again.add(new LogEntry(1, Ledger.encode("r0#a", i, new byte[ENTRY])));
        }
        log.append(40, again);   // what the leader sends it
        assertFalse(log.quarantined(), "lifted once the log reaches 100");
        assertFalse(Files.exists(dir.resolve(Quarantine.FILE)), "and its record removed");
        log.close();
    }

    @Test
    void theQuarantineOutlivesACrashBeforeTheLogIsBack() throws Exception {
        written(50, 50).close();
        flip(payloadOf(20) - 5);   // in the header of record 20
        reopened().close();
        SyncedSnapshotLog log = reopened();   // the log is cut now: only the record says it held more
        assertEquals(19, log.lastAppended());
        assertTrue(log.quarantined(), "the reach was recorded before the log was cut");
        log.close();
    }

    @Test
    void aDamagedLastRecordIsATornTail() throws Exception {
        written(30, 29).close();
        flip(payloadOf(30) + 10);
        SyncedSnapshotLog log = reopened();
        assertEquals(29, log.lastAppended(), "jgroups-raft ends the log before it, as it would a torn write");
        assertFalse(log.quarantined(), "nothing valid follows: a torn tail, no quarantine");
        log.close();
    }

    @Test
    void aDamagedSnapshotIsAnErrorNamingItNeverAStateTakenAsItIs() throws Exception {
        SyncedSnapshotLog log = written(5, 5);
        byte[] state = new byte[1000];
        state[500] = 9;
        log.setSnapshot(ByteBuffer.wrap(state));
        ByteBuffer back = log.getSnapshot();
        byte[] read = new byte[back.remaining()];
        back.get(read);
        assertArrayEquals(state, read);
        log.close();
        Path snap = dir.resolve(SyncedSnapshotLog.SNAPSHOT);
        byte[] bytes = Files.readAllBytes(snap);
        bytes[600] ^= 1;
        Files.write(snap, bytes);
        IOException e = assertThrows(IOException.class, () -> SyncedSnapshotLog.unframed(snap, ByteBuffer.wrap(bytes)));
        assertTrue(e.getMessage().contains(snap.toString()) && e.getMessage().contains("damaged"), e.getMessage());
    }

    @Test
    void aDamagedEntryIsNeverApplied() {
        byte[] entry = Ledger.encode("r1#b", 7, new byte[] {1, 2, 3});
        assertTrue(Ledger.body(entry, 0, entry.length) > 0);
        entry[entry.length - 1] ^= 4;
        assertEquals(-1, Ledger.body(entry, 0, entry.length), "its checksum fails");
    }
}
