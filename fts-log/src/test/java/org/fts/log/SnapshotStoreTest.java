package org.fts.log;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Snapshots on real files: the newest readable one, the fallback, and what is refused. */
class SnapshotStoreTest {
    @TempDir
    Path dir;

    private static byte[] state(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void theNewestSnapshotIsReadBackAndOnlyTwoAreKept() throws IOException {
        SnapshotStore store = new SnapshotStore(dir);
        assertTrue(store.latest().isEmpty());
        store.write(10, state("ten"));
        store.write(20, state("twenty"));
        store.write(30, state("thirty"));
        assertEquals(2, store.files().size());
        SnapshotStore.Snapshot s = new SnapshotStore(dir).latest().orElseThrow();
        assertEquals(30, s.index());
        assertArrayEquals(state("thirty"), s.payload());
    }

    @Test
    void aDamagedSnapshotFallsBackToThePreviousOne() throws IOException {
        SnapshotStore store = new SnapshotStore(dir);
        store.write(10, state("ten"));
        Path newest = store.write(20, state("twenty"));
        try (RandomAccessFile f = new RandomAccessFile(newest.toFile(), "rw")) {
            f.seek(f.length() - 1);
            f.write('#');
        }
        SnapshotStore.Snapshot s = store.latest().orElseThrow();
        assertEquals(10, s.index());
        assertArrayEquals(state("ten"), s.payload());
    }

    @Test
    void noReadableSnapshotAmongSomeIsAnErrorNamingThem() throws IOException {
        SnapshotStore store = new SnapshotStore(dir);
        Path only = store.write(10, state("ten"));
        Files.write(only, new byte[] {1, 2, 3});
        IOException e = assertThrows(IOException.class, store::latest);
        assertTrue(e.getMessage().contains(only.toString()), e.getMessage());
    }

    @Test
    void aSnapshotOfAnotherFormatVersionIsRefusedNotSkipped() throws IOException {
        SnapshotStore store = new SnapshotStore(dir);
        store.write(10, state("ten"));
        Path newest = store.write(20, state("twenty"));
        try (RandomAccessFile f = new RandomAccessFile(newest.toFile(), "rw")) {
            f.seek(4);
            f.writeShort(9);
        }
        IOException e = assertThrows(IOException.class, store::latest);
        assertTrue(e.getMessage().contains(newest.toString()) && e.getMessage().contains("version 9"), e.getMessage());
    }

    @Test
    void aLeftoverTemporaryFileIsNotASnapshot() throws IOException {
        SnapshotStore store = new SnapshotStore(dir);
        store.write(10, state("ten"));
        Files.write(dir.resolve(SnapshotStore.fileName(20) + ".tmp"), new byte[] {1, 2});
        assertEquals(10, store.latest().orElseThrow().index());
    }
}
