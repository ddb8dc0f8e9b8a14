package org.fts.goa.intake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.junit.jupiter.api.Test;

/** The placement line operators read ({@code fts status}, the {@code Load} attribute). */
class PlacementFiguresTest {
    @Test
    void theFiguresAreShownAsOneLine() {
        PlacementFigures f = new PlacementFigures("load", 3, 6, 0, 410, true, 20, 2,
                Map.of("127.0.0.1:20001", 3L, "127.0.0.1:20002", 4L), Map.of("127.0.0.1:20002", 2L));
        assertEquals("placement=load connections=3 forwarded=6 in_flight=0 cpu_permille=410 serving=1 "
                + "fixed_permille=20 serving_replicas=2 board=127.0.0.1:20001=3,127.0.0.1:20002=4 "
                + "extra=127.0.0.1:20002=2", f.format());
        assertEquals(7, f.boardConnections());
    }

    @Test
    void noExtraWorkAndAnEmptyBoardShowNoExtraField() {
        PlacementFigures f = new PlacementFigures("first", 0, 0, 0, 0, false, 0, 0, Map.of(), Map.of());
        assertTrue(f.format().endsWith("serving_replicas=0 board="), f.format());
    }
}
