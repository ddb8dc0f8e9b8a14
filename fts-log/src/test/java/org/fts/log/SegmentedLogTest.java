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
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The log on real files: what survives a reopen, and what a torn write, a damaged disk or another format do. */
class SegmentedLogTest {
    @TempDir
    Path dir;

    private static byte[] rec(long i) {
        return ("record " + i + " " + "x".repeat((int) (i % 50))).getBytes(StandardCharsets.UTF_8);
    }

    private SegmentedLog filled(long from, long to, long segmentBytes) throws IOException {
        SegmentedLog log = SegmentedLog.open(dir, segmentBytes);
        for (long i = from; i <= to; i++) {
            log.append(i, rec(i));
        }
        log.sync();
        return log;
    }

    private static void assertHolds(SegmentedLog log, long from, long to) throws IOException {
        assertEquals(from, log.firstIndex());
        assertEquals(to, log.lastIndex());
        for (long i = from; i <= to; i++) {
            assertArrayEquals(rec(i), log.read(i), "record " + i);
        }
    }

    @Test
    void syncedRecordsSurviveAReopenAcrossSegments() throws IOException {
        try (SegmentedLog log = filled(1, 500, 2048)) {
            assertTrue(log.files().size() > 5, "rolled: " + log.files().size() + " segments");
            assertHolds(log, 1, 500);
        }
        try (SegmentedLog log = SegmentedLog.open(dir, 2048)) {
            assertHolds(log, 1, 500);
            log.append(501, rec(501));
            log.sync();
        }
        try (SegmentedLog log = SegmentedLog.open(dir, 2048)) {
            assertHolds(log, 1, 501);
        }
    }

    @Test
    void indexesAreConsecutiveAndAnEmptyLogMayStartBehindASnapshot() throws IOException {
        try (SegmentedLog log = SegmentedLog.open(dir, 1 << 20)) {
            assertTrue(log.isEmpty());
            assertEquals(0, log.lastIndex());
            log.append(1000, rec(1000));
            assertThrows(IllegalArgumentException.class, () -> log.append(1002, rec(1002)));
            assertThrows(IllegalArgumentException.class, () -> log.append(1000, rec(1000)));
            log.append(1001, rec(1001));
            log.sync();
            assertHolds(log, 1000, 1001);
        }
    }

    @Test
    void aTornTailIsCutOffAtTheLastValidRecord() throws IOException {
        filled(1, 100, 1 << 20).close();
        Path seg = Files.list(dir).filter(p -> p.toString().endsWith(".log")).findFirst().orElseThrow();
        long size = Files.size(seg);
        try (RandomAccessFile f = new RandomAccessFile(seg.toFile(), "rw")) {
            f.setLength(size - 3);   // the last record's payload cut short, as a crash mid-write leaves it
        }
        try (SegmentedLog log = SegmentedLog.open(dir, 1 << 20)) {
            assertHolds(log, 1, 99);
            log.append(100, rec(100));   // the log goes on where the valid records end
            log.sync();
        }
        try (SegmentedLog log = SegmentedLog.open(dir, 1 << 20)) {
            assertHolds(log, 1, 100);
        }
    }

    @Test
    void aFlippedByteInTheLastRecordIsCaughtByItsChecksum() throws IOException {
        filled(1, 10, 1 << 20).close();
        Path seg = Files.list(dir).filter(p -> p.toString().endsWith(".log")).findFirst().orElseThrow();
        try (RandomAccessFile f = new RandomAccessFile(seg.toFile(), "rw")) {
            f.seek(Files.size(seg) - 2);
            int b = f.read();
            f.seek(Files.size(seg) - 2);
            f.write(b ^ 0x40);
        }
        try (SegmentedLog log = SegmentedLog.open(dir, 1 << 20)) {
            assertHolds(log, 1, 9);
        }
    }

    @Test
    void damageBeforeTheLastSegmentIsADamagedDiskAndRefused() throws IOException {
        List<Path> files;
        try (SegmentedLog log = filled(1, 200, 2048)) {
            files = log.files();
        }
        Path first = files.get(0);
        try (RandomAccessFile f = new RandomAccessFile(first.toFile(), "rw")) {
            f.seek(Segment.HEADER + Segment.RECORD_HEADER + 2);
            f.write('#');
        }
        IOException e = assertThrows(IOException.class, () -> SegmentedLog.open(dir, 2048));
        assertTrue(e.getMessage().contains(first.toString()) && e.getMessage().contains("disk"), e.getMessage());
    }

    @Test
    void aMissingSegmentIsRefused() throws IOException {
        List<Path> files;
        try (SegmentedLog log = filled(1, 200, 2048)) {
            files = log.files();
        }
        Files.delete(files.get(2));
        IOException e = assertThrows(IOException.class, () -> SegmentedLog.open(dir, 2048));
        assertTrue(e.getMessage().contains("records missing"), e.getMessage());
    }

    @Test
    void aSegmentOfAnotherFormatVersionIsRefusedByName() throws IOException {
        filled(1, 5, 1 << 20).close();
        Path seg = Files.list(dir).filter(p -> p.toString().endsWith(".log")).findFirst().orElseThrow();
        try (RandomAccessFile f = new RandomAccessFile(seg.toFile(), "rw")) {
            f.seek(4);
            f.writeShort(2);
        }
        IOException e = assertThrows(IOException.class, () -> SegmentedLog.open(dir, 1 << 20));
        assertTrue(e.getMessage().contains(seg.toString()) && e.getMessage().contains("version 2"), e.getMessage());
        Files.writeString(seg, "not a log at all");
        e = assertThrows(IOException.class, () -> SegmentedLog.open(dir, 1 << 20));
        assertTrue(e.getMessage().contains(seg.toString()), e.getMessage());
    }

    @Test
    void aDivergentTailIsTruncatedDurablyAndTheLogGoesOnFromThere() throws IOException {
        try (SegmentedLog log = filled(1, 300, 2048)) {
            log.truncateAfter(120);
            assertHolds(log, 1, 120);
            log.append(121, rec(121));
            log.sync();
        }
        try (SegmentedLog log = SegmentedLog.open(dir, 2048)) {
            assertHolds(log, 1, 121);
            log.truncateAfter(0);
            assertTrue(log.isEmpty());
            log.append(7, rec(7));
            log.sync();
        }
        try (SegmentedLog log = SegmentedLog.open(dir, 2048)) {
            assertHolds(log, 7, 7);
        }
    }

    @Test
    void compactionDeletesWholeSegmentsBehindTheSnapshotOnly() throws IOException {
        try (SegmentedLog log = filled(1, 300, 2048)) {
            int before = log.files().size();
            log.compactBefore(150);
            assertTrue(log.files().size() < before);
            assertTrue(log.firstIndex() <= 150 && log.firstIndex() > 1, "first " + log.firstIndex());
            assertHolds(log, log.firstIndex(), 300);
        }
        try (SegmentedLog log = SegmentedLog.open(dir, 2048)) {
            assertTrue(log.firstIndex() <= 150);
            assertEquals(300, log.lastIndex());
        }
    }

    @Test
    void theSyncFiguresCountGroupCommits() throws IOException {
        try (SegmentedLog log = SegmentedLog.open(dir, 1 << 20)) {
            for (long i = 1; i <= 100; i++) {
                log.append(i, rec(i));
                if (i % 10 == 0) {
                    log.sync();
                }
            }
            log.sync();   // nothing new: no sync
            assertEquals(10, log.stats().syncs());
            assertEquals(10.0, log.stats().recordsPerSync());
            assertTrue(log.stats().percentileNanos(99) > 0);
        }
    }
}
