package org.fts.loadtest.campaign;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The campaign runner's pure parts: campaign files, data logs, process split, target verdicts. */
class CampaignPartsTest {

    @Test
    void builtInCampaignsParse() throws Exception {
        CampaignSpec quick = CampaignSpec.load("quick");
        assertEquals(3, quick.replicas());
        assertTrue(quick.clients().contains(400), "the targets are stated at 400 clients");
        assertTrue(quick.series().stream().anyMatch(CampaignSpec.Series::unreplicated));
        for (String p : List.of("nb", "cb", "tb", "ab", "tab", "pack", "natural")) {
            assertTrue(quick.series().stream().anyMatch(s -> s.policy().equals(p)), p);
        }
        assertTrue(quick.serverWarmup().enabled(), "replicas are warmed up before they are measured");
        assertEquals(false, CampaignSpec.load("smoke").serverWarmup().enabled());
        CampaignSpec full = CampaignSpec.load("full");
        assertEquals(2500, full.clients().get(full.clients().size() - 1));
        assertTrue(full.repetitions() > 1);
    }

    @Test
    void aCampaignNamesItsLoadGeneratorAndTheLeanPhasesAreSeconds() throws Exception {
        assertEquals("grinder", CampaignSpec.load("quick").generator().kind());
        CampaignSpec lean = CampaignSpec.load("quick-lean");
        assertTrue(lean.generator().lean());
        assertEquals(5, lean.generator().measureSeconds());
        assertEquals(30, lean.generator().serverWarmupSeconds());
        assertEquals(CampaignSpec.load("quick").series(), lean.series(), "the quick campaign's series");
        assertEquals("lean", Campaign.withGenerator(CampaignSpec.load("quick"), "lean").generator().kind());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> CampaignSpec.parse("x", "generator = jmeter\nseries nb fts.batching=nb\n"));
        assertTrue(e.getMessage().contains("generator"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> CampaignSpec.parse("x", "generator = lean\nlean.measure = 0\nseries nb fts.batching=nb\n"));
        assertTrue(e.getMessage().contains("lean.measure"), e.getMessage());
    }

    @Test
    void eachGeneratorRewritesOnlyItsOwnSectionOfTheDocument(@TempDir Path dir) throws Exception {
        Path doc = dir.resolve("performance.md");
        Files.writeString(doc, "# P\n" + PerformanceDoc.BEGIN + "\nold grinder\n" + PerformanceDoc.END + "\nhand\n"
                + PerformanceDoc.LEAN_BEGIN + "\nold lean\n" + PerformanceDoc.LEAN_END + "\nmore hand\n");
        Path report = Files.createDirectories(dir.resolve("report"));
        for (Report.Figure f : Report.FIGURES) {
            Files.write(report.resolve(f.file()), new byte[] {1});
        }
        List<Point> points = List.of(point("nb", "nb", 1, 900));
        PerformanceDoc.write(doc, report, CampaignSpec.load("smoke-lean"), points, "m", "cmd");
        String text = Files.readString(doc);
        assertTrue(text.contains("old grinder") && !text.contains("old lean"), text);
        assertTrue(text.contains("performance/lean/throughput.png") && text.contains("hand\n")
                && text.contains("more hand"), text);
        assertTrue(Files.exists(dir.resolve("performance/lean/client-latency-p99.png")));
        PerformanceDoc.write(doc, report, CampaignSpec.load("smoke"), points, "m", "cmd");
        assertTrue(!Files.readString(doc).contains("old grinder"));
        assertTrue(Files.readString(doc).contains("performance/lean/throughput.png"), "the lean section stays");
    }

    @Test
    void phasesSpreadATotalOverTheClients() {
        CampaignSpec.Phase p = new CampaignSpec.Phase(6000, 10, 1500);
        assertEquals(1500, p.perClient(1));
        assertEquals(600, p.perClient(10));
        assertEquals(10, p.perClient(800));
    }

    @Test
    void badCampaignLinesNameTheProblem() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> CampaignSpec.parse("x", "replica = 3\nseries nb fts.batching=nb\n"));
        assertTrue(e.getMessage().contains("'replica'"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> CampaignSpec.parse("x", "series cb count\n"));
        assertTrue(e.getMessage().contains("'count'"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> CampaignSpec.parse("x", "clients = 1, -4\nseries nb fts.batching=nb\n"));
        assertTrue(e.getMessage().contains("clients"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> CampaignSpec.parse("x", "replicas = 3\n"));
        assertTrue(e.getMessage().contains("series"), e.getMessage());
    }

    @Test
    void seriesParamsLeaveOutThePolicy() {
        CampaignSpec s = CampaignSpec.parse("x", "series cb-10 fts.batching=cb fts.batching.cb.count=10 "
                + "fts.batching.cb.backup=5ms\n");
        assertEquals("cb", s.series().get(0).policy());
        assertEquals("cb.count=10;cb.backup=5ms", s.series().get(0).params());
    }

    @Test
    void workersSplitClientsEvenly() {
        assertEquals(1, GrinderRun.processesFor(1));
        assertEquals(1, GrinderRun.processesFor(1000));
        assertEquals(2, GrinderRun.processesFor(1500));
        assertEquals(4, GrinderRun.processesFor(2500));   // 3 does not divide 2500
        assertEquals(7, GrinderRun.processesFor(1001));   // 143 each: 2 to 6 do not divide 1001
    }

    @Test
    void dataLogGivesMeasuredThroughputAndLatency(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("vm-0-data.log"), String.join("\n",
                "Thread, Run, Test, Start time (ms since Epoch), Test time, Errors",
                "0, 0, 1, 1000, 5, 0",
                "0, 0, 2, 2000, 10, 0",
                "1, 0, 2, 2005, 20, 0",
                "0, 0, 2, 2010, 30, 0",
                "1, 0, 2, 2025, 1, 1",
                "0, 0, 3, 3000, 5, 0",
                "0, 0, 3, 2030, 5, 0",
                "1, 0, 3, 30") + "\n");
        DataLog log = DataLog.read(dir);
        assertEquals(3, log.measuredCalls());
        assertEquals(1, log.errors());
        assertEquals(2000, log.measuredStart());
        assertEquals(2040, log.measuredEnd());
        assertEquals(4 * 1000.0 / 40, log.throughput(), 1e-9);   // 3 measured calls and a tail call
        assertEquals(20, log.meanMillis(), 1e-9);
        assertEquals(20, log.percentileMillis(0.5), 1e-9);
        assertEquals(30, log.percentileMillis(0.99), 1e-9);
        assertEquals(4, log.callsEndedBetween(2000, 2040));
        assertEquals(6, log.callsEndedBetween(0, 5000));
    }

    @Test
    void targetVerdictsComeFromThePoints() {
        List<Point> points = List.of(
                point("nb", "nb", 400, 500), point("tab", "tab", 400, 3000),
                point("unreplicated", "unreplicated", 400, 8000), point("cb-10", "cb", 400, 3100),
                point("nb", "nb", 10, 900), point("tab", "tab", 10, 700), point("cb-10", "cb", 10, 1000));
        List<String> t = PerformanceDoc.targets(points);
        assertTrue(t.get(0).startsWith("**Met:**") && t.get(0).contains("6.00×"), t.get(0));
        assertTrue(t.get(1).startsWith("**Not met:**") && t.get(1).contains("10 clients: 70% of cb-10"), t.get(1));
        assertTrue(t.get(2).startsWith("**Not met:**") && t.get(2).contains("38%"), t.get(2));
        assertTrue(t.get(3).startsWith("**Not measured here:**"), t.get(3));
    }

    private static Point point(String series, String policy, int clients, double rps) {
        return new Point(series, policy, "", 3, clients, 1, rps, 0, 1, 1, 1, 1, 1, 1, 1, 1, 100, 0);
    }
}
