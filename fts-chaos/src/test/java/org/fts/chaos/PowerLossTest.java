package org.fts.chaos;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Random;

import org.fts.log.SegmentedLog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The powerloss nemesis's hand on a real log: what was not synced is gone, the mark lags a sync, and a damaged batch
 * synced last is cut but reported as uncertain when the log opens again (docs/durability.md, "After a power loss").
 */
class PowerLossTest {
    @TempDir
    Path dir;

    private static byte[] payload(long i) {
        byte[] p = new byte[100];
        java.util.Arrays.fill(p, (byte) i);
        return p;
    }

    /** 1..10 synced, 11..12 synced last, 13..14 written and never synced; the process killed (nothing closed). */
    private void logged() throws Exception {
        SegmentedLog l = SegmentedLog.open(dir.resolve("log"), 64 << 10);
        for (long i = 1; i <= 14; i++) {
            l.append(i, payload(i));
            if (i == 10 || i == 12) {
                l.sync();
            }
        }
        // not closed: a kill -9 leaves the page cache as it is (a close would change nothing on disk either)
    }

    @Test
    void whatWasNotSyncedIsGoneAndTheLogOpensAtItsLastSync() throws Exception {
        logged();
        for (long seed = 0; seed < 4; seed++) {   // torn or not
            PowerLoss.Result r = PowerLoss.apply(dir, false, new Random(seed));
            assertEquals(12, r.synced(), r.did());
            try (SegmentedLog again = SegmentedLog.open(dir.resolve("log"), 64 << 10)) {
                assertEquals(12, again.lastIndex(), r.did());
                for (long i = 1; i <= 12; i++) {
                    assertArrayEquals(payload(i), again.readPayload(i));
                }
                assertTrue(again.damage().isEmpty(), again.damage()::toString);
            }
        }
    }

    @Test
    void aDamagedBatchSyncedLastIsCutAndReportedAsUncertain() throws Exception {
        logged();
        PowerLoss.Result r = PowerLoss.apply(dir, true, new Random(1));
        assertTrue(r.did().contains("damaged record 12") && r.did().contains("names 10"), r.did());
        try (SegmentedLog again = SegmentedLog.open(dir.resolve("log"), 64 << 10)) {
            assertEquals(11, again.lastIndex(), "cut: it cannot be told from a torn write");
            assertEquals(12, again.uncertainFrom(), "but it may have held, and acknowledged, 12 on");
        }
    }
}
