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

    @Test
    void nothingLoggedSinceTheMarkFlipsNothingAndTheRaftLogIsOneFile() throws Exception {
        Path raft = Files.createDirectories(dir.resolve("raft.log")).resolve("entries.raft");
        Files.write(raft, new byte[300]);
        LogDamage.Mark mark = LogDamage.mark(dir);
        String did = LogDamage.damage(dir, mark, 50, 0);
        assertTrue(did.startsWith("nothing flipped"), did);
        assertEquals(300, Files.size(raft));
        LogDamage.damage(dir, null, 25, 0);
        assertEquals(0x5a, Files.readAllBytes(raft)[75] & 0xff);
    }
}
