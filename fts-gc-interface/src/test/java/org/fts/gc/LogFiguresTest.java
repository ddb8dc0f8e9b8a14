package org.fts.gc;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class LogFiguresTest {
    @Test
    void theFiguresAreShownAsOneLine() {
        LogFigures f = new LogFigures(1_219, 1.2, 170, 1_550, 4_194_304);
        assertEquals("syncs=1219 records_per_sync=1.2 p50_us=170 p99_us=1550 disk_bytes=4194304", f.format());
        assertEquals("syncs=0 records_per_sync=0.0 p50_us=0 p99_us=0 disk_bytes=-1",
                new LogFigures(0, 0, 0, 0, -1).format());
    }
}
