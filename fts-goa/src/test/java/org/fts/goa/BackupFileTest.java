package org.fts.goa;

import org.fts.goa.intake.Encoding;
import org.fts.goa.intake.Membership;
import org.fts.goa.intake.ReplyCache;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A backup file: written whole, read back checked; damage, truncation, another version or a foreign file refused. */
class BackupFileTest {
    @TempDir
    Path dir;

    private static BackupFile backup() throws Snapshot.StateException {
        byte[] snapshot = Snapshot.take(new Snapshot.Parts(new ObjectTable(null, null, 10, true),
                new ReplyCache(16, 60_000, 0), new Membership(List.of("127.0.0.1:7001")), new ExecutionRecord()));
        return new BackupFile("g", "r1", 1_700_000_000_000L, "3@r0/1234", Snapshot.objectsDigest(snapshot), snapshot);
    }

    @Test
    void aBackupRoundTripsThroughItsFile() throws Exception {
        BackupFile b = backup();
        Path f = dir.resolve("a" + BackupFile.SUFFIX);
        b.writeTo(f);
        BackupFile read = BackupFile.read(f);
        assertEquals("g", read.group());
        assertEquals("r1", read.taker());
        assertEquals("3@r0/1234", read.position());
        assertEquals(b.objectsDigest(), read.objectsDigest());
        assertArrayEquals(b.snapshot(), read.snapshot());
        assertEquals(0, read.objects());
        assertTrue(Files.list(dir).noneMatch(p -> p.toString().endsWith(".tmp")), "no temporary file left");
    }

    @Test
    void everyFlippedByteATruncationAnotherVersionOrAForeignFileIsRefusedNamingTheFile() throws Exception {
        byte[] good = backup().encode();
        Path f = dir.resolve("b" + BackupFile.SUFFIX);
        for (int i = 0; i < good.length; i++) {
            byte[] bad = good.clone();
            bad[i] ^= 0x20;
            Files.write(f, bad);
            IOException e = assertThrows(IOException.class, () -> BackupFile.read(f), "byte " + i);
            assertTrue(e.getMessage().contains(f.toString()), e.getMessage());
        }
        Files.write(f, java.util.Arrays.copyOf(good, good.length - 5));
        assertThrows(IOException.class, () -> BackupFile.read(f));
        Files.write(f, "#!/bin/sh\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        assertTrue(assertThrows(IOException.class, () -> BackupFile.read(f)).getMessage().contains("not an FTS backup"));
    }

    @Test
    void aStateAnnouncingMoreBytesThanItHoldsIsRefusedWithoutAllocatingThem() {
        byte[] snapshot = Encoding.bytes(64, out -> {
            out.writeByte(2);            // the snapshot format
            out.writeLong(1);            // the group reference's version
            out.writeInt(0);             // no endpoints
            out.writeLong(0);            // the reply cache's clock
            out.writeInt(0);             // no replies
            out.writeInt(0);             // no tombstones
            out.writeInt(1);             // one object
            out.writeShort(1);
            out.writeByte('c');
            out.writeByte(1);            // with state:
            out.writeInt(Integer.MAX_VALUE - 16);   // 2 GB announced, 0 held
        });
        Snapshot.StateException e = assertThrows(Snapshot.StateException.class, () -> Snapshot.objectsDigest(snapshot));
        assertTrue(e.getMessage().contains("announces"), e.getMessage());
    }
}
