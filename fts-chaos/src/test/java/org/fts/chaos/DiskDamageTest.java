package org.fts.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LogDamageTest {
    @TempDir
    Path dir;

    @Test
    void aFlipLandsInWhatWasLoggedSinceTheMarkAndATearShortensTheNewestSegment() throws Exception {
        Path log = dir.resolve("log");
        byte[] payload = new byte[100];
        java.util.Arrays.fill(payload, (byte) 7);
        try (org.fts.log.SegmentedLog l = org.fts.log.SegmentedLog.open(log, 64 << 10)) {
            for (long i = 1; i <= 60; i++) {
                l.append(i, payload);
            }
            l.sync();
            DiskDamage.Mark mark = DiskDamage.mark(dir);
            Path newest = mark.segment();
            assertEquals(org.fts.log.SegmentFiles.recordsEnd(newest), mark.size(), "the mark: where its records end");
            assertTrue(Files.size(newest) > mark.size(), "the segment is zero-filled ahead of its records");
            for (long i = 61; i <= 70; i++) {
                l.append(i, payload);
            }
            l.sync();
            long end = org.fts.log.SegmentFiles.recordsEnd(newest);
            byte[] before = Files.readAllBytes(newest);

            String did = DiskDamage.damage(dir, mark, 50, 10);
            byte[] after = Files.readAllBytes(newest);
            long at = mark.size() + (end - mark.size()) * 50 / 100;
            assertEquals(end - 10, after.length, did);
            for (int i = 0; i < after.length; i++) {
                assertEquals(i == at ? before[i] ^ 0x5a : before[i], after[i], "byte " + i + ": " + did);
            }
            assertTrue(did.contains("offset " + at) && did.contains("tore 10 bytes"), did);
        }
    }

    /** {@code n} raft records of 100 bytes each (26 of header), then {@code ahead} zeros written ahead. */
    private static byte[] raftFile(int n, int ahead) {
        java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(n * 100 + ahead);
        for (int i = 1; i <= n; i++) {
            b.put((byte) 1).putInt(100).putLong(1).putLong(i).put((byte) 0).putInt(74).put(new byte[74]);
        }
        return b.array();
    }

    @Test
    void nothingLoggedSinceTheMarkFlipsNothingAndTheRaftLogIsOneFile() throws Exception {
        Path raft = Files.createDirectories(dir.resolve("raft.log")).resolve("entries.raft");
        Files.write(raft, raftFile(3, 0));
        DiskDamage.Mark mark = DiskDamage.mark(dir);
        String did = DiskDamage.damage(dir, mark, 50, 0);
        assertTrue(did.startsWith("nothing flipped"), did);
        assertEquals(300, Files.size(raft));
        DiskDamage.damage(dir, null, 25, 0);
        assertEquals(0x5a, Files.readAllBytes(raft)[75] & 0xff);
    }

    @Test
    void theZerosJGroupsRaftWritesAheadAreNotWhatItLogged() throws Exception {
        Path raft = Files.createDirectories(dir.resolve("raft.log")).resolve("entries.raft");
        Files.write(raft, raftFile(4, 0));
        DiskDamage.Mark mark = DiskDamage.mark(dir);
        assertEquals(400, mark.size());
        Files.write(raft, raftFile(8, 1500));   // 4 records more, then 1500 zeros written ahead
        String did = DiskDamage.damage(dir, mark, 50, 10);
        byte[] after = Files.readAllBytes(raft);
        assertEquals(790, after.length, "torn 10 bytes off the last record, not off the zeros: " + did);
        assertEquals(raftFile(8, 0)[600] ^ 0x5a, after[600], "half way into the 400 bytes of records since the mark: " + did);
    }
}
