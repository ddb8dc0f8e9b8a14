package org.fts.order;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.fts.gc.MemberId;
import org.fts.order.Wire.Entry;
import org.fts.process.Waits;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A member's write-ahead log ({@link DurableLog}): what it makes durable, and what it reads back after a crash. */
class DurableLogTest {
    private static final MemberId A = new MemberId("a#1");

    @TempDir
    Path dir;

    private static Entry entry(long gseq) {
        return new Entry(gseq, A, gseq * 10, ("payload-" + gseq).getBytes());
    }

    @Test
    void theWriterSyncsWhatIsQueuedThenSaysSoAndAReopenReadsItBack() {
        AtomicInteger told = new AtomicInteger();
        try (DurableLog log = DurableLog.open(dir)) {
            log.start(told::incrementAndGet);
            for (long g = 1; g <= 100; g++) {
                log.append(entry(g), g - 1);
            }
            Waits.await(() -> log.durable() == 100, Duration.ofSeconds(10), () -> "durable " + log.durable());
            assertTrue(told.get() >= 1, "onDurable runs after a sync that made more durable");
            assertTrue(log.stats().syncs() <= 100, "group commit: at most one sync per append");
        }
        try (DurableLog again = DurableLog.open(dir)) {
            DurableLog.Loaded l = again.loaded();
            assertEquals(0, l.from());
            assertEquals(100, l.entries().size());
            assertEquals(99, l.commitHint(), "the highest commit point recorded with an entry");
            Entry e = l.entries().get(41);
            assertEquals(42, e.gseq());
            assertEquals(A, e.origin());
            assertEquals(420, e.oseq());
            assertArrayEquals("payload-42".getBytes(), e.payload());
        }
    }

    @Test
    void aTruncatedTailIsGoneAfterAReopenAndTheLogGoesOnFromThere() {
        try (DurableLog log = DurableLog.open(dir)) {
            log.start(() -> { });
            for (long g = 1; g <= 10; g++) {
                log.append(entry(g), 0);
            }
            log.truncateAfter(6);   // appends what is queued first, then cuts
            assertEquals(6, log.durable());
            assertEquals(List.of(5L, 6L), log.read(4, 10).stream().map(Entry::gseq).toList());
            log.append(entry(7), 5);
            Waits.await(() -> log.durable() == 7, Duration.ofSeconds(10), () -> "durable " + log.durable());
        }
        try (DurableLog again = DurableLog.open(dir)) {
            assertEquals(7, again.loaded().entries().size());
            assertEquals(5, again.loaded().commitHint());
        }
    }

    @Test
    void theEpochMetaIsReplacedAtomicallyAndReadBack() {
        DurableLog.EpochMeta meta = new DurableLog.EpochMeta(58, 57, 3, new MemberId("b#2"), true,
                List.of(A, new MemberId("b#2"), new MemberId("c#3")), 4321,
                List.of(new org.fts.gc.internal.EpochPlan.Link(new org.fts.gc.internal.EpochId(2, new MemberId("c#3")),
                        41, 4320)));
        try (DurableLog log = DurableLog.open(dir)) {
            assertEquals(DurableLog.EpochMeta.NONE, log.loaded().meta());
            log.writeMeta(new DurableLog.EpochMeta(1, 0, 0, null, false, List.of(), 0, List.of()));
            log.writeMeta(meta);
        }
        try (DurableLog again = DurableLog.open(dir)) {
            assertEquals(meta, again.loaded().meta());
        }
    }

    @Test
    void aDamagedMetaIsRefusedNamingTheFile() throws Exception {
        try (DurableLog log = DurableLog.open(dir)) {
            log.writeMeta(new DurableLog.EpochMeta(7, 7, 7, A, false, List.of(A), 1, List.of()));
        }
        Path meta = dir.resolve("epoch.meta");
        byte[] bytes = Files.readAllBytes(meta);
        bytes[bytes.length - 1] ^= 0x40;
        Files.write(meta, bytes);
        UncheckedIOException e = assertThrows(UncheckedIOException.class, () -> DurableLog.open(dir));
        assertTrue(e.getMessage().contains("epoch.meta") && e.getMessage().contains("checksum"), e.getMessage());
    }

    @Test
    void aLogWithEntriesButNoEpochMetaIsRefusedNotDropped() {
        try (DurableLog log = DurableLog.open(dir)) {   // entries, and (as if lost) no epoch.meta
            log.start(() -> { });
            log.append(entry(1), 0);
            Waits.await(() -> log.durable() == 1, Duration.ofSeconds(10), () -> "durable " + log.durable());
        }
        TotalOrder.Transport nowhere = new TotalOrder.Transport() {
            public void unicast(MemberId to, byte[] msg) { }
            public void control(MemberId to, byte[] msg) { }
            public void urgent(MemberId to, byte[] msg) { }
            public void multicast(byte[] msg) { }
            public void multicastUrgent(byte[] msg) { }
        };
        org.fts.gc.internal.DeliveryPump pump = new org.fts.gc.internal.DeliveryPump("x", new org.fts.testing.Recorder());
        try (DurableLog again = DurableLog.open(dir)) {
            UncheckedIOException e = assertThrows(UncheckedIOException.class, () -> new TotalOrder(A,
                    new org.fts.gc.GroupConfig(3, true), nowhere, pump, again, Ordering.SEQUENCER, Runnable::run));
            assertTrue(e.getMessage().contains("epoch.meta"), e.getMessage());
            assertEquals(1, again.loaded().entries().size(), "nothing dropped");
        }
    }

    @Test
    void aLogShortOfItsEpochsStartSaysSoAfterARestart() {
        // The epoch's meta is written at its opening, its prefix synced after: a crash in between.
        try (DurableLog log = DurableLog.open(dir)) {
            log.start(() -> { });
            for (long g = 1; g <= 90; g++) {
                log.append(entry(g), g - 1);
            }
            Waits.await(() -> log.durable() == 90, Duration.ofSeconds(10), () -> "durable " + log.durable());
            log.writeMeta(new DurableLog.EpochMeta(7, 7, 7, A, false, List.of(A, new MemberId("b#1")), 101, List.of()));
        }
        org.fts.gc.internal.DeliveryPump pump = new org.fts.gc.internal.DeliveryPump("y", new org.fts.testing.Recorder());
        java.util.List<Wire.State> reports = new java.util.ArrayList<>();
        try (DurableLog again = DurableLog.open(dir)) {
            TotalOrder order = new TotalOrder(A, new org.fts.gc.GroupConfig(3, true), new TotalOrder.Transport() {
                public void unicast(MemberId to, byte[] msg) { }
                public void control(MemberId to, byte[] msg) {
                    reports.add((Wire.State) Wire.decode(msg));
                }
                public void urgent(MemberId to, byte[] msg) { }
                public void multicast(byte[] msg) { }
                public void multicastUrgent(byte[] msg) { }
            }, pump, again, Ordering.SEQUENCER, Runnable::run);
            MemberId b = new MemberId("b#1");
            order.viewChanged(new org.fts.gc.View(1, List.of(b, A), A));
            order.receive(b, Wire.encode(new Wire.StateReq(1, 20)));
            assertEquals(1, reports.size());
            Wire.State s = reports.get(0);
            // It opened epoch 7 (and nothing later), but holds its history only up to 90 of the 100 it began with: it
            // says so, and is no source (EpochPlan counts it only where a source holds what it does).
            assertEquals(new org.fts.gc.internal.EpochId(7, A), s.epoch().id());
            assertTrue(s.shortLog(), "a log short of epoch 7's start (100) must say so");
            assertEquals(false, s.fresh());
            assertEquals(90, s.last());
        }
    }

    @Test
    void aSecondProcessOnTheSameDirectoryIsRefused() {
        try (DurableLog log = DurableLog.open(dir)) {
            UncheckedIOException e = assertThrows(UncheckedIOException.class, () -> DurableLog.open(dir));
            assertTrue(e.getMessage().contains("in use"), e.getMessage());
        }
    }
}
