package org.fts.order;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link LeaseFile}: what a replica's incarnations may have granted, kept beside its log; a damaged record refused. */
class LeaseFileTest {
    @TempDir
    Path dir;

    @Test
    void noRecordIsNoLeaseAndARecordReadsBack() throws IOException {
        LeaseFile f = new LeaseFile(dir);
        assertEquals(0, f.read());
        f.write(2_000_000_000L);
        assertEquals(2_000_000_000L, new LeaseFile(dir).read());
        f.write(500_000_000L);
        assertEquals(500_000_000L, new LeaseFile(dir).read());
    }

    @Test
    void aDamagedRecordIsRefusedNamingTheFile() throws IOException {
        new LeaseFile(dir).write(2_000_000_000L);
        Path p = dir.resolve(LeaseFile.NAME);
        byte[] b = Files.readAllBytes(p);
        b[10] ^= 1;
        Files.write(p, b);
        IOException e = assertThrows(IOException.class, () -> new LeaseFile(dir).read());
        assertTrue(e.getMessage().contains(LeaseFile.NAME) && e.getMessage().contains("checksum"), e.getMessage());
        Files.write(p, new byte[] {1, 2, 3});
        e = assertThrows(IOException.class, () -> new LeaseFile(dir).read());
        assertTrue(e.getMessage().contains("not an FTS lease record"), e.getMessage());
    }
}
