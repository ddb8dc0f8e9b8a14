package org.fts.log;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The log on real files: what survives a reopen, and what a torn write, a damaged disk or another format do
 * (docs/durability.md, "Storage faults").
 */
class SegmentedLogTest {
    @TempDir
    Path dir;

    private static byte[] rec(long i) {
        return ("record " + i + " " + "x".repeat((int) (i % 50))).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] meta(long i) {
        return ("m" + i).getBytes(StandardCharsets.UTF_8);
    }

    private SegmentedLog filled(long from, long to, long segmentBytes) throws IOException {
        SegmentedLog log = SegmentedLog.open(dir, segmentBytes);
        for (long i = from; i <= to; i++) {
            log.append(i, meta(i), rec(i));
        }
        log.sync();
        return log;
    }

    /** A process crash: whatever was written stays in the files, nothing more is synced or closed in order. */
    private static void crash(SegmentedLog log) {
        log.closeQuietly();
    }

    private static void assertHolds(SegmentedLog log, long from, long to) throws IOException {
        assertEquals(from, log.firstIndex());
        assertEquals(to, log.lastIndex());
        for (long i = from; i <= to; i++) {
            assertArrayEquals(rec(i), log.readPayload(i), "record " + i);
        }
    }

    private Path segment(int k) throws IOException {
        try (var files = Files.list(dir)) {
            return files.filter(p -> p.toString().endsWith(".log")).sorted().toList().get(k);
        }
    }

    /** Flips a byte at {@code offset} of {@code file} (from the end of its records if negative). */
    private static void flip(Path file, long offset) throws IOException {
        long recordsEnd = SegmentFiles.recordsEnd(file);
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            long at = offset < 0 ? recordsEnd + offset : offset;
            f.seek(at);
            int b = f.read();
            f.seek(at);
            f.write(b ^ 0x40);
        }
    }

    /** The file offset of record {@code index}'s payload byte {@code k}, by walking the segment's records. */
    private static long payloadOffset(Path seg, long index, int k) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(seg.toFile(), "r")) {
            long pos = Segment.HEADER;
            while (true) {
                f.seek(pos + 4);
                int length = f.readInt();
                int metaLength = f.readShort() & 0xffff;
                f.readShort();
                long i = f.readLong();
                if (i == index) {
                    return pos + Segment.RECORD_HEADER + metaLength + k;
                }
                pos += Segment.RECORD_HEADER + metaLength + length;
            }
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
            assertArrayEquals(meta(77), log.read(77).meta());
            log.append(501, meta(501), rec(501));
            log.sync();
        }
        try (SegmentedLog log = SegmentedLog.open(dir, 2048)) {
            assertHolds(log, 1, 501);
            assertTrue(log.damage().isEmpty());
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
    void aTornTailOfRecordsWrittenButNotSyncedIsCutOffAtTheLastValidRecord() throws IOException {
        SegmentedLog log = filled(1, 100, 1 << 20);
        for (long i = 101; i <= 103; i++) {
            log.append(i, meta(i), rec(i));   // written, never synced: a crash mid-write may tear them
        }
        crash(log);
        Path seg = segment(0);
        long recordsEnd = SegmentFiles.recordsEnd(seg);
        try (RandomAccessFile f = new RandomAccessFile(seg.toFile(), "rw")) {
            f.setLength(recordsEnd - 3);   // the last record's payload cut short, as a crash mid-write leaves it
        }
        try (SegmentedLog again = SegmentedLog.open(dir, 1 << 20)) {
            assertHolds(again, 1, 102);
            assertTrue(again.damage().isEmpty(), "a torn write is not damage: " + again.damage());
            again.append(103, meta(103), rec(103));   // the log goes on where the valid records end
            again.sync();
        }
        try (SegmentedLog again = SegmentedLog.open(dir, 1 << 20)) {
            assertHolds(again, 1, 103);
        }
    }

    @Test
    void theFileIsZeroFilledAheadOfItsRecordsAndTheZerosAreItsEndNotDamage() throws IOException {
        SegmentedLog log = filled(1, 100, 64L << 20);
        crash(log);
        Path seg = segment(0);
        long recordsEnd = SegmentFiles.recordsEnd(seg);
        assertTrue(Files.size(seg) - recordsEnd > Segment.PREALLOCATE / 2,
                "zeros ahead: " + Files.size(seg) + " bytes for " + recordsEnd + " of records");
        try (SegmentedLog again = SegmentedLog.open(dir, 64L << 20)) {
            assertHolds(again, 1, 100);
            assertTrue(again.damage().isEmpty(), again.damage()::toString);
            again.append(101, meta(101), rec(101));   // written over the zeros
            again.sync();
        }
        try (SegmentedLog again = SegmentedLog.open(dir, 64L << 20)) {
            assertHolds(again, 1, 101);
        }
    }

    @Test
    void aRecordTornInsideTheZerosAheadIsATornTail() throws IOException {
        SegmentedLog log = filled(1, 10, 1 << 20);
        log.append(11, meta(11), rec(11));   // not synced
        crash(log);
        Path seg = segment(0);
        long recordsEnd = SegmentFiles.recordsEnd(seg);
        try (RandomAccessFile f = new RandomAccessFile(seg.toFile(), "rw")) {
            f.seek(recordsEnd - 5);
            f.write(new byte[5]);   // its last blocks never reached the disk: zeros, as the file was filled with
        }
        try (SegmentedLog again = SegmentedLog.open(dir, 1 << 20)) {
            assertHolds(again, 1, 10);
            assertTrue(again.damage().isEmpty(), "a torn write is not damage: " + again.damage());
        }
    }

    @Test
    void zerosWhereSyncedRecordsWereAreDamageNotTheEnd() throws IOException {
        crash(filled(1, 20, 1 << 20));
        Path seg = segment(0);
        long from = payloadOffset(seg, 15, 0) - Segment.RECORD_HEADER - meta(15).length;
        long to = SegmentFiles.recordsEnd(seg);
        try (RandomAccessFile f = new RandomAccessFile(seg.toFile(), "rw")) {
            f.seek(from);
            f.write(new byte[(int) (to - from)]);   // a lost write: 15..20 read back as zeros
        }
        try (SegmentedLog again = SegmentedLog.open(dir, 1 << 20)) {
            assertEquals(20, again.lastIndex(), "the log had synced 20: zeros there are a lost write, kept");
            assertEquals(List.of(15L), again.damage().stream().map(Damage::from).toList());
            List<Record> copies = new java.util.ArrayList<>();
            for (long i = 15; i <= 20; i++) {
                copies.add(new Record(i, meta(i), rec(i)));
            }
            assertTrue(again.repair(copies).isEmpty(), "repaired from copies");
            again.append(21, meta(21), rec(21));
            again.sync();
        }
        try (SegmentedLog again = SegmentedLog.open(dir, 1 << 20)) {
            assertHolds(again, 1, 21);
            assertTrue(again.damage().isEmpty(), again.damage()::toString);
        }
    }

    @Test
    void aFlippedByteInARecordNotSyncedYetIsATornTail() throws IOException {
        SegmentedLog log = filled(1, 10, 1 << 20);
        log.append(11, meta(11), rec(11));
        crash(log);
        flip(segment(0), -2);
        try (SegmentedLog again = SegmentedLog.open(dir, 1 << 20)) {
            assertHolds(again, 1, 10);
            assertTrue(again.damage().isEmpty());
        }
    }

    /**
     * Issue 59: after a power loss the mark, never synced, may lag the last sync, so damage in the batch synced last
     * looks like a torn write. The mark of another boot says that this may be so: the tail is still cut (it cannot
     * be told from a torn write), but the log reports that it may have held entries from there on, durably, until
     * the caller settles it.
     */
    @Test
    void afterAPowerLossDamageInTheBatchSyncedLastIsCutButReportedAsUncertain() throws IOException {
        SegmentedLog log = filled(1, 10, 1 << 20);
        log.append(11, meta(11), rec(11));
        log.append(12, meta(12), rec(12));
        log.sync();   // the batch synced last: 11..12, acknowledged
        crash(log);
        try (SyncMark mark = new SyncMark(dir.resolve(SegmentedLog.MARK))) {
            mark.write(10, new byte[16], false);   // a power loss: the mark's last write lost, and another boot now
        }
        flip(segment(0), -2);   // and the disk damaged record 12
        try (SegmentedLog again = SegmentedLog.open(dir, 1 << 20)) {
            assertHolds(again, 1, 11);
            assertTrue(again.damage().isEmpty(), again.damage()::toString);
            assertEquals(12, again.uncertainFrom(), "it may have held 12 on: never counted as lacking it");
            again.append(12, meta(12), rec(12));   // repaired from the group, say
            again.sync();
        }
        try (SegmentedLog again = SegmentedLog.open(dir, 1 << 20)) {
            assertEquals(12, again.uncertainFrom(), "kept across opens until settled");
            again.settleUncertain();
            assertEquals(Long.MAX_VALUE, again.uncertainFrom());
        }
        try (SegmentedLog again = SegmentedLog.open(dir, 1 << 20)) {
            assertEquals(Long.MAX_VALUE, again.uncertainFrom(), "settled durably");
            assertHolds(again, 1, 12);
        }
    }

    /** The same cut with a mark of this boot (a process crash, the page cache intact) is a torn write, certainly. */
    @Test
    void aMarkOfThisBootIsExactSoATornTailIsCertain() throws IOException {
        SegmentedLog log = filled(1, 10, 1 << 20);
        log.append(11, meta(11), rec(11));   // not synced
        crash(log);
        flip(segment(0), -2);
        try (SegmentedLog again = SegmentedLog.open(dir, 1 << 20)) {
            assertHolds(again, 1, 10);
            assertEquals(Long.MAX_VALUE, again.uncertainFrom());
        }
    }

    /** A mark of the form before boot ids is read, as of another boot: exact no more. */
    @Test
    void aMarkWithoutABootIdIsReadAsOfAnotherBoot() throws IOException {
        Path f = dir.resolve("old.mark");
        java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(16).put(new byte[] {'F', 'T', 'S', 'D'}).putLong(42);
        java.util.zip.CRC32C c = new java.util.zip.CRC32C();
        c.update(b.array(), 4, 8);
        b.putInt((int) c.getValue());
        Files.createDirectories(dir);
        Files.write(f, b.array());
        assertEquals(new SyncMark.Read(42, false), SyncMark.read(f));
        try (SyncMark m = new SyncMark(f)) {
            m.write(43, false);
        }
        assertEquals(43, SyncMark.read(f).index());
        assertEquals(Files.exists(Path.of("/proc/sys/kernel/random/boot_id")), SyncMark.read(f).thisBoot());
    }

    @Test
    void aFlippedByteInASyncedRecordIsDamageNotATornTailEvenAtTheEnd() throws IOException {
        crash(filled(1, 10, 1 << 20));
        flip(segment(0), -2);
        try (SegmentedLog log = SegmentedLog.open(dir, 1 << 20)) {
            assertEquals(10, log.lastIndex(), "the log had synced 10: it is kept");
            assertEquals(List.of(10L), log.damage().stream().map(Damage::from).toList());
            assertArrayEquals(meta(10), log.damage().get(0).meta(), "its header still verifies: its meta is known");
            DamagedRecordException e = assertThrows(DamagedRecordException.class, () -> log.read(10));
            assertEquals(10, e.index());
            assertArrayEquals(rec(9), log.readPayload(9));
        }
    }

    @Test
    void aDamagedRecordFollowedByValidRecordsIsReportedNotCutInAnySegment() throws IOException {
        // The case: one byte flipped inside a suffix; before, everything after it was cut as a "torn tail".
        List<Path> files;
        try (SegmentedLog log = filled(1, 300, 2048)) {
            files = log.files();
        }
        Path last = files.get(files.size() - 1);
        long lastFirst = Long.parseLong(last.getFileName().toString().replace(".log", ""));
        flip(last, payloadOffset(last, lastFirst + 1, 3));
        flip(files.get(0), payloadOffset(files.get(0), 5, 0));
        try (SegmentedLog log = SegmentedLog.open(dir, 2048)) {
            assertEquals(300, log.lastIndex());
            assertEquals(List.of(5L, lastFirst + 1), log.damage().stream().map(Damage::from).toList());
            for (long i = 1; i <= 300; i++) {
                if (i != 5 && i != lastFirst + 1) {
                    assertArrayEquals(rec(i), log.readPayload(i), "record " + i);
                }
            }
        }
    }

    @Test
    void aRecordWhoseHeaderIsDamagedIsLocatedByItsNeighbours() throws IOException {
        try (SegmentedLog log = filled(1, 40, 1 << 20)) {
            assertEquals(40, log.lastIndex());
        }
        Path seg = segment(0);
        flip(seg, payloadOffset(seg, 20, 0) - Segment.RECORD_HEADER - meta(20).length + 14);   // inside its index
        try (SegmentedLog log = SegmentedLog.open(dir, 1 << 20)) {
            assertEquals(40, log.lastIndex());
            assertEquals(1, log.damage().size());
            Damage d = log.damage().get(0);
            assertEquals(20, d.from());
            assertEquals(20, d.to());
            assertNull(d.meta(), "its identity is not readable");
            assertArrayEquals(rec(21), log.readPayload(21));
            assertThrows(DamagedRecordException.class, () -> log.read(20));
        }
    }

    @Test
    void aRepairRewritesTheDamagedRecordsAndKeepsEveryOther() throws IOException {
        try (SegmentedLog log = filled(1, 300, 2048)) {
            assertEquals(300, log.lastIndex());
        }
        Path seg = segment(2);
        long first = Long.parseLong(seg.getFileName().toString().replace(".log", ""));
        flip(seg, payloadOffset(seg, first + 2, 1));
        flip(seg, payloadOffset(seg, first + 4, 1) - Segment.RECORD_HEADER - 2);   // a header: unreadable
        try (SegmentedLog log = SegmentedLog.open(dir, 2048)) {
            assertEquals(2, log.damage().size(), log.damage()::toString);
            List<Record> copies = new ArrayList<>();
            for (long i = first; i <= first + 6; i++) {
                copies.add(new Record(i, meta(i), rec(i)));   // a copy of every record, damaged or not: only damaged taken
            }
            assertTrue(log.repair(copies).isEmpty());
            assertHolds(log, 1, 300);
            log.append(301, meta(301), rec(301));
            log.sync();
        }
        try (SegmentedLog log = SegmentedLog.open(dir, 2048)) {
            assertTrue(log.damage().isEmpty());
            assertHolds(log, 1, 301);
        }
    }

    @Test
    void aMissingSegmentIsReportedAsDamageAndCanBeRepaired() throws IOException {
        List<Path> files;
        try (SegmentedLog log = filled(1, 200, 2048)) {
            files = log.files();
        }
        Files.delete(files.get(2));
        long from = Long.parseLong(files.get(2).getFileName().toString().replace(".log", ""));
        long to = Long.parseLong(files.get(3).getFileName().toString().replace(".log", "")) - 1;
        try (SegmentedLog log = SegmentedLog.open(dir, 2048)) {
            assertEquals(List.of(new Damage(from, to, null)).toString(), log.damage().toString());
            assertThrows(DamagedRecordException.class, () -> log.read(from));
            List<Record> copies = new ArrayList<>();
            for (long i = from; i <= to; i++) {
                copies.add(new Record(i, meta(i), rec(i)));
            }
            assertTrue(log.repair(copies).isEmpty());
            assertHolds(log, 1, 200);
        }
        try (SegmentedLog log = SegmentedLog.open(dir, 2048)) {
            assertHolds(log, 1, 200);
        }
    }

    @Test
    void aSegmentOfAnotherFormatVersionIsRefusedByName() throws IOException {
        filled(1, 5, 1 << 20).close();
        Path seg = segment(0);
        try (RandomAccessFile f = new RandomAccessFile(seg.toFile(), "rw")) {
            f.seek(4);
            f.writeShort(1);
        }
        IOException e = assertThrows(IOException.class, () -> SegmentedLog.open(dir, 1 << 20));
        assertTrue(e.getMessage().contains(seg.toString()) && e.getMessage().contains("version 1"), e.getMessage());
        Files.writeString(seg, "not a log at all, and long enough not to look like a header of one");
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
    void aTruncationLowersTheSyncedMarkSoThatRecordsWrittenAfterItCanStillBeTorn() throws IOException {
        SegmentedLog log = filled(1, 300, 1 << 20);
        log.truncateAfter(120);
        log.append(121, meta(121), rec(121));   // not synced: the mark must not still say 300
        crash(log);
        flip(segment(0), -1);
        try (SegmentedLog again = SegmentedLog.open(dir, 1 << 20)) {
            assertHolds(again, 1, 120);
            assertTrue(again.damage().isEmpty(), again.damage()::toString);
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
            assertNotNull(log.read(300));
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
