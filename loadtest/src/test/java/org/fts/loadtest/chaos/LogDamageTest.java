package org.fts.loadtest.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LogDamageTest {
    @TempDir
    Path dir;

    @Test
    void aFlipLandsInWhatWasLoggedSinceTheMarkAndATearShortensTheNewestSegment() throws Exception {
        Path log = Files.createDirectories(dir.resolve("log"));
        Files.write(log.resolve(String.format("%020d.log", 1)), new byte[4000]);
        Path newest = log.resolve(String.format("%020d.log", 900));
        Files.write(newest, new byte[1000]);
        LogDamage.Mark mark = LogDamage.mark(dir);
        assertEquals(new LogDamage.Mark(newest, 1000), mark);
        Files.write(newest, new byte[1000], StandardOpenOption.APPEND);

        String did = LogDamage.damage(dir, mark, 50, 10);
        byte[] after = Files.readAllBytes(newest);
        assertEquals(1990, after.length, did);
        for (int i = 0; i < after.length; i++) {
            assertEquals(i == 1500 ? 0x5a : 0, after[i] & 0xff, "byte " + i + ": " + did);
        }
        assertTrue(did.contains("offset 1500") && did.contains("tore 10 bytes"), did);
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
        LogDamage.Mark mark = LogDamage.mark(dir);
        String did = LogDamage.damage(dir, mark, 50, 0);
        assertTrue(did.startsWith("nothing flipped"), did);
        assertEquals(300, Files.size(raft));
        LogDamage.damage(dir, null, 25, 0);
        assertEquals(0x5a, Files.readAllBytes(raft)[75] & 0xff);
    }

    @Test
    void theZerosJGroupsRaftWritesAheadAreNotWhatItLogged() throws Exception {
        Path raft = Files.createDirectories(dir.resolve("raft.log")).resolve("entries.raft");
        Files.write(raft, raftFile(4, 0));
        LogDamage.Mark mark = LogDamage.mark(dir);
        assertEquals(400, mark.size());
        Files.write(raft, raftFile(8, 1500));   // 4 records more, then 1500 zeros written ahead
        String did = LogDamage.damage(dir, mark, 50, 10);
        byte[] after = Files.readAllBytes(raft);
        assertEquals(790, after.length, "torn 10 bytes off the last record, not off the zeros: " + did);
        assertEquals(raftFile(8, 0)[600] ^ 0x5a, after[600], "half way into the 400 bytes of records since the mark: " + did);
    }
}
