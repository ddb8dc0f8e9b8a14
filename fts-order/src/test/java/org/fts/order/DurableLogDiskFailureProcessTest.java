package org.fts.order;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.fts.gc.MemberId;
import org.fts.order.Wire.Entry;
import org.fts.process.FileLimitedJvm;
import org.junit.jupiter.api.Test;

/**
 * A durable log whose disk refuses a write stops its replica with exit 70, naming the directory, and acknowledged
 * nothing its disk does not hold (docs/durability.md, "Storage faults"). The disk is real: a JVM whose files may not
 * grow past 4 MiB ({@code ulimit -f}; the log preallocates 1 MiB at a time), so that the log's write fails as a full
 * volume's does.
 */
class DurableLogDiskFailureProcessTest {

    /**
     * Appends 1 KiB entries to a log in {@code args[0]}, printing {@code DURABLE n} after each sync, until its disk
     * refuses; exit 0 if it never does.
     */
    public static void main(String[] args) throws Exception {
        MemberId a = new MemberId("a#1");
        try (DurableLog log = DurableLog.open(Path.of(args[0]))) {
            log.start(() -> {
                System.out.println("DURABLE " + log.durable());
                System.out.flush();
            });
            byte[] payload = new byte[1024];
            for (long g = 1; g <= 10_000; g++) {
                log.append(new Entry(g, a, g, payload), g - 1);
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (g % 16 == 0 && log.durable() < g && System.nanoTime() < deadline) {
                    Thread.sleep(1);   // keep the appends near the writer: many syncs before the disk refuses
                }
            }
        }
        System.exit(0);
    }

    @Test
    void aWriteTheDiskRefusesStopsTheReplicaWithExit70AndNothingUnsyncedWasAcknowledged() throws Exception {
        Path dir = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "disk-failure-");
        FileLimitedJvm.Result r = FileLimitedJvm.run(getClass(), 4096, Path.of("target").toAbsolutePath(),
                Duration.ofSeconds(60), dir.toString());
        String log = r.output();
        assertEquals(70, r.exit(), log);
        assertTrue(log.contains("FTS durable log in " + dir) && log.contains("stops"), log);
        long acknowledged = log.lines().filter(l -> l.startsWith("DURABLE ")).mapToLong(l -> Long.parseLong(
                l.substring(8).trim())).max().orElse(0);
        assertTrue(acknowledged > 0, "it synced entries before the disk refused: " + log);
        try (DurableLog reopened = DurableLog.open(dir)) {
            assertTrue(reopened.loaded().last() >= acknowledged, "the disk holds every entry the log said was "
                    + "durable (" + acknowledged + "); it holds up to " + reopened.loaded().last());
        }
    }
}
