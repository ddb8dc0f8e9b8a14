package org.fts.order;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.fts.gc.MemberId;
import org.fts.order.Wire.Entry;
import org.fts.process.Waits;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A member's checkpoints ({@link Checkpoints}, through {@link DurableLog}): what a restart goes on from, and what
 * compaction may drop (docs/durability.md, "Checkpoints").
 */
class CheckpointsTest {
    private static final MemberId A = new MemberId("a#1");
    private static final MemberId B = new MemberId("b#2");
    private static final long SEGMENT = 64 << 10;

    @TempDir
    Path dir;

    private static Entry entry(long gseq) {
        return new Entry(gseq, gseq % 2 == 0 ? A : B, gseq, new byte[1000]);
    }

    private static void fill(DurableLog log, long from, long to) {
        for (long g = from; g <= to; g++) {
            log.append(entry(g), g - 1);
        }
        Waits.await(() -> log.durable() == to, Duration.ofSeconds(10), () -> "durable " + log.durable());
    }

    private static void checkpoint(DurableLog log, long position, byte[] state) throws Exception {
        CompletableFuture<Boolean> done = new CompletableFuture<>();
        log.checkpoint(position, Map.of(A, position, B, position - 1), state, done::complete);
        assertTrue(done.get(10, TimeUnit.SECONDS), "checkpoint at " + position + " written");
    }

    @Test
    void aRestartGoesOnFromTheNewestCheckpointAndTheLogIsCompactedBehindThePreviousOne() throws Exception {
        try (DurableLog log = DurableLog.open(dir, SEGMENT)) {
            log.start(() -> { });
            fill(log, 1, 300);
            checkpoint(log, 150, "state at 150".getBytes());
            assertEquals(1, log.extent()[0], "one checkpoint: nothing is dropped (no fallback behind it yet)");
            fill(log, 301, 500);
            checkpoint(log, 400, "state at 400".getBytes());
            long first = log.extent()[0];
            assertTrue(first > 1 && first <= 151, "compacted behind the previous checkpoint, whole segments only: "
                    + "the log starts at " + first);
        }
        try (DurableLog again = DurableLog.open(dir, SEGMENT)) {
            DurableLog.Loaded l = again.loaded();
            assertTrue(l.rooted());
            assertEquals(400, l.from());
            assertArrayEquals("state at 400".getBytes(), l.root().state());
            assertEquals(Map.of(A, 400L, B, 399L), l.root().marks());
            assertEquals(100, l.entries().size(), "only the entries after the checkpoint are replayed");
            assertEquals(401, l.entries().get(0).gseq());
            long first = again.extent()[0];
            assertEquals(List.of(first, first + 1), again.read(first - 1, first + 1).stream().map(Entry::gseq).toList(),
                    "entries behind the newest checkpoint stay readable for repairs until compacted");
            assertEquals(first - 1, again.pinBase(), "what it reports it can repair from");
        }
    }

    @Test
    void aDamagedNewestCheckpointFallsBackToThePreviousOneAndTheLogReplaysFromThere() throws Exception {
        try (DurableLog log = DurableLog.open(dir, SEGMENT)) {
            log.start(() -> { });
            fill(log, 1, 300);
            checkpoint(log, 100, "state at 100".getBytes());
            checkpoint(log, 250, "state at 250".getBytes());
        }
        Path newest;
        try (Stream<Path> s = Files.list(dir.resolve("snap"))) {
            newest = s.filter(p -> p.toString().endsWith(".snap")).sorted().reduce((a, b) -> b).orElseThrow();
        }
        byte[] bytes = Files.readAllBytes(newest);
        bytes[bytes.length - 1] ^= 1;
        Files.write(newest, bytes);
        try (DurableLog again = DurableLog.open(dir, SEGMENT)) {
            DurableLog.Loaded l = again.loaded();
            assertEquals(100, l.from());
            assertArrayEquals("state at 100".getBytes(), l.root().state());
            assertEquals(200, l.entries().size());
        }
    }

    @Test
    void compactionKeepsWhatTheMemberReportedItCanRepairUntilItsEpochOpens() throws Exception {
        try (DurableLog log = DurableLog.open(dir, SEGMENT)) {
            log.start(() -> { });
            fill(log, 1, 300);
            assertEquals(0, log.pinBase(), "the whole log can be repaired from");
            checkpoint(log, 100, "a".getBytes());
            checkpoint(log, 250, "b".getBytes());
            assertEquals(1, log.extent()[0], "pinned: nothing compacted while a recovery may ask for repairs");
            log.unpin();
            fill(log, 301, 400);
            checkpoint(log, 350, "c".getBytes());
            assertTrue(log.extent()[0] > 1, "unpinned: compacted behind the checkpoint at 250");
            assertTrue(log.pinBase() == log.extent()[0] - 1, "reports what compaction left");
        }
    }

    @Test
    void aGapEmptiesTheLogAndARestartBeforeTheStateIsCheckpointedHasNoStateButKeepsItsEntriesAndMarks()
            throws Exception {
        try (DurableLog log = DurableLog.open(dir, SEGMENT)) {
            log.start(() -> { });
            fill(log, 1, 50);
            log.restartAt(999, Map.of(A, 7L, B, 9L), false);
            assertEquals(999, log.durable());
            assertEquals(999, log.pinBase(), "nothing at or before the gap can be repaired from it");
            log.unpin();
            fill(log, 1000, 1010);
        }
        try (DurableLog again = DurableLog.open(dir, SEGMENT)) {
            DurableLog.Loaded l = again.loaded();
            assertFalse(l.rooted(), "no state of its own: the application fetches one");
            assertEquals(999, l.from());
            assertEquals(Map.of(A, 7L, B, 9L), l.root().marks());
            assertNull(l.root().state());
            assertEquals(11, l.entries().size());
            checkpointAfterReopen(again);
        }
        try (DurableLog third = DurableLog.open(dir, SEGMENT)) {
            assertTrue(third.loaded().rooted(), "the state it installed, checkpointed, roots its log again");
            assertEquals(1005, third.loaded().from());
        }
    }

    private static void checkpointAfterReopen(DurableLog log) throws Exception {
        log.start(() -> { });
        checkpoint(log, 1005, "installed".getBytes());
    }

    @Test
    void aFoundingAgainRootsTheLogAtTheInitialState() throws Exception {
        try (DurableLog log = DurableLog.open(dir, SEGMENT)) {
            log.start(() -> { });
            fill(log, 1, 20);
            log.restartAt(30, Map.of(), true);
            fill(log, 31, 40);
        }
        try (DurableLog again = DurableLog.open(dir, SEGMENT)) {
            DurableLog.Loaded l = again.loaded();
            assertTrue(l.rooted());
            assertEquals(30, l.from());
            assertNull(l.root().state(), "the initial state: nothing to restore");
            assertEquals(10, l.entries().size());
        }
    }
}
