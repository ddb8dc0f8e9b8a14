package org.fts.loadtest.campaign;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The smoke campaigns end to end, with each load generator: smoke.campaign (nb and tab, 1 and 4 clients, 3 replica
 * JVMs, real Grinder agents and workers) and smoke-lean.campaign (the same with the lean GIOP driver, 2 runs per
 * point): CSV, report and figures are produced and hold sane values. No timing assertions.
 */
class CampaignSmokeTest {

    @Test
    @Timeout(300)
    void smokeCampaignProducesCsvAndReport() throws Exception {
        Run run = run("smoke");
        Path dir = run.dir();
        List<Point> points = run.points();
        ByteArrayOutputStream progress = run.progress();
        Path index = dir.resolve("report").resolve("index.html");

        List<String> csv = Files.readAllLines(dir.resolve("campaign.csv"));
        assertEquals(Point.HEADER, csv.get(0));
        assertEquals(4, csv.size() - 1, "one row per (series, clients): " + csv);
        for (String line : csv.subList(1, csv.size())) {
            Point p = Point.parse(line);
            assertTrue(p.throughputRps() > 0, "throughput above zero: " + line);
            assertEquals(0, p.errors(), "no errors: " + line);
            assertEquals(3, p.replicas(), line);
            assertTrue(p.latMeanMs() > 0 && p.latP99Ms() >= p.latP50Ms(), "latencies: " + line);
            assertTrue(p.batchMean() >= 1, "the replicas batched (length >= 1): " + line);
            assertTrue(p.castLatencyMeanUs() > 0, "cast latency measured: " + line);
            assertTrue(p.cpuUsPerReq() > 0 && p.rssMb() > 0, "CPU and RSS read from /proc: " + line);
        }
        assertEquals(List.of("nb", "tab"), points.stream().map(Point::series).distinct().toList());
        assertEquals(List.of(1, 4), points.stream().map(Point::clients).distinct().toList());
        assertTrue(Files.readString(index).contains("<img src=\"throughput.png\">"));
        for (Report.Figure f : Report.FIGURES) {
            byte[] png = Files.readAllBytes(dir.resolve("report").resolve(f.file()));
            assertTrue(png.length > 1000 && png[1] == 'P' && png[2] == 'N' && png[3] == 'G', f.file());
        }
        assertTrue(progress.toString(StandardCharsets.UTF_8).contains("[4/4]"), progress.toString());
    }

    @Test
    @Timeout(300)
    void leanSmokeCampaignMeasuresAtMicrosecondsWithTheSpreadOfItsRuns() throws Exception {
        Run run = run("smoke-lean");
        Path dir = run.dir();
        List<Point> points = run.points();
        ByteArrayOutputStream progress = run.progress();
        assertEquals(4, points.size(), points.toString());
        List<String> runs = Files.readAllLines(dir.resolve("runs.csv"));
        assertEquals(1 + 8, runs.size(), "every run kept: " + runs);
        for (Point p : points) {
            String line = p.csv();
            assertEquals(2, p.runs(), line);
            assertTrue(p.throughputRps() > 0, line);
            // The spread is its own two runs' (two equal counts are a legitimate coincidence, so not "they differ").
            double[] own = runs.stream().skip(1).map(Point::parse)
                    .filter(r -> r.series().equals(p.series()) && r.clients() == p.clients())
                    .mapToDouble(Point::throughputRps).toArray();
            assertEquals(2, own.length, "its runs in runs.csv: " + line);
            assertEquals((own[0] + own[1]) / 2, p.throughputRps(), 0.1, "the mean of its runs: " + line);
            assertEquals(Math.abs(own[0] - own[1]) / Math.sqrt(2), p.throughputSd(), 0.1,
                    "the standard deviation of its runs " + own[0] + ", " + own[1] + ": " + line);
            assertEquals(0, p.errors(), line);
            assertTrue(p.latP50Ms() > 0 && p.latP50Ms() < 1000 && p.latP99Ms() >= p.latP50Ms(), "latencies: " + line);
            // The counters are read one by one under load (BatchCounters): a window's messages and batches can each
            // miss the few casts in flight, so one message per batch (NB) reads as 0.999 as often as 1.001. Read, they
            // are near one per batch at least; unread, 0.
            assertTrue(p.batchMean() >= 0.99 && p.castLatencyMeanUs() > 0, "the replicas' counters: " + line);
            assertTrue(p.cpuUsPerReq() > 0 && p.clientCpuUsPerReq() > 0, "servers' and driver's CPU: " + line);
        }
        for (Report.Figure f : Report.FIGURES) {
            byte[] png = Files.readAllBytes(dir.resolve("report").resolve(f.file()));
            assertTrue(png.length > 1000 && png[1] == 'P' && png[2] == 'N' && png[3] == 'G', f.file());
        }
        assertTrue(progress.toString(StandardCharsets.UTF_8).contains("lean clients"), progress.toString());
    }

    /** A campaign run end to end, its report written: where, its points, and its progress output. */
    private record Run(Path dir, List<Point> points, ByteArrayOutputStream progress) {
    }

    private static Run run(String campaign) throws Exception {
        CampaignSpec spec = CampaignSpec.load(campaign);
        Path dir = Path.of("target", "smoke-campaign", campaign + "-" + System.nanoTime()).toAbsolutePath();
        ByteArrayOutputStream progress = new ByteArrayOutputStream();
        List<Point> points = new Campaign(spec, dir, new PrintStream(progress, true, StandardCharsets.UTF_8)).run();
        Report.write(dir.resolve("report"), spec, points, Machine.describe());
        return new Run(dir, points, progress);
    }
}
