package org.fts.loadtest.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

/** The summary's verdicts: ratios within each run, their median against the bounds. */
class LoadReportTest {
    private static Measurement m(String target, int connections, String mode, int run, double callsPerSecond,
                                 double p50, double p99, double cpu) {
        return new Measurement(target, connections, mode, run, mode.equals("open") ? 1000 : 0, callsPerSecond, p50, p50,
                p99, p99 * 2, p99 * 3, cpu, 10, 0, 0, 0);
    }

    @Test
    void targetsAreJudgedOnTheMedianOfTheRatiosWithinEachRun() {
        List<Measurement> ms = new ArrayList<>();
        // plain: p50 100 / 80 / 100; fts: 190 / 200 / 230 -> ratios 1.9, 2.5, 2.3 -> median 2.3: not met
        double[] plainP50 = {100, 80, 100};
        double[] ftsP50 = {190, 200, 230};
        for (int run = 1; run <= 3; run++) {
            ms.add(m("plain", 1, "closed", run, 10_000, plainP50[run - 1], 200, 50));
            ms.add(m("fts", 1, "closed", run, 4_000, ftsP50[run - 1], 400, 200));
            // 50 connections: throughput 0.7x, CPU 1.4x in every run: both met
            ms.add(m("plain", 50, "closed", run, 40_000, 1000, 3000, 30));
            ms.add(m("fts", 50, "closed", run, 28_000, 1500, 4000, 42));
            ms.add(m("fts", 50, "open", run, 20_000, 800, 4_900 + run * 100, 45));   // p99 5.0, 5.1, 5.2 ms
            ms.add(m("fts", 1, "open", run, 2_000, 150, 9_000, 60));                 // shown, not judged
        }
        List<String> v = LoadReport.verdicts(ms, "plain", "50%");
        assertEquals(4, v.size(), v.toString());
        assertEquals("**Not met:** fts p50 at 1 connection ≤ 2.0× plain's: 2.30× (runs: 1.90, 2.50, 2.30).", v.get(0));
        assertTrue(v.get(1).startsWith("**Met:** fts calls/s at 50 connections ≥ 0.6× plain's: 0.70×"), v.get(1));
        assertTrue(v.get(2).startsWith("**Met:** fts server CPU per call at 50 connections ≤ 1.5× plain's: 1.40×"),
                v.get(2));
        assertTrue(v.get(3).startsWith("**Not met:** fts open loop at 50% of plain's rate at 50 connections: p99 ≤ 5 ms:"
                + " 5.10 ms"), v.get(3));
    }

    @Test
    void aPolicyIsComparedWithNbAtOneConnectionAndTheDefaultIsNot() {
        List<Measurement> ms = List.of(m("nb", 1, "closed", 1, 5000, 200, 400, 100),
                m("atab", 1, "closed", 1, 5000, 210, 400, 100), m("fts", 1, "closed", 1, 5000, 300, 400, 100));
        List<String> v = LoadReport.verdicts(ms, "nb", null);
        assertEquals(List.of("**Met:** atab p50 at 1 connection ≤ 1.1× nb's: 1.05× (runs: 1.05)."), v);
    }

    @Test
    void theSummaryWarnsWhenTheDriverWasOverItsBudget() {
        Measurement heavy = new Measurement("plain", 1, "closed", 1, 0, 1000, 90, 80, 200, 400, 900, 50, 31.5, 0, 0, 0);
        assertTrue(LoadReport.summary(List.of(heavy), "plain", null).contains("over its 30 µs budget"));
        Measurement lean = new Measurement("plain", 1, "closed", 1, 0, 1000, 90, 80, 200, 400, 900, 50, 12, 0, 0, 0);
        assertTrue(!LoadReport.summary(List.of(lean), "plain", null).contains("budget"));
    }
}
