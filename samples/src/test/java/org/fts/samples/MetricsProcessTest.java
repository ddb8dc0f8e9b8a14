package org.fts.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.UUID;

import fts_samples.Counter;
import fts_samples.CounterHelper;
import org.fts.process.Ports;
import org.fts.process.Waits;
import org.fts.testkit.ReplicaCluster;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.omg.CORBA.ORB;

/**
 * The Prometheus endpoint of a replica JVM on each real binding (docs/metrics.md): the total order's figures are
 * exported under one set of names on both, so that one set of alert rules reads both; the cast latency is a histogram,
 * monotonic figures are counters, and the JVM's own metrics are there.
 */
class MetricsProcessTest {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private ReplicaCluster cluster;
    private ORB orb;

    @AfterEach
    void stop() {
        if (orb != null) {
            orb.shutdown(false);
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"jgroups", "raft"})
    void theOrdersFiguresCarryTheSameNamesOnEitherBinding(String gc) throws Exception {
        int port = Ports.free("127.0.0.1");
        List<String> options = new ArrayList<>(List.of("-Dfts.gc=" + gc, "-Dfts.metrics.port=" + port));
        if (gc.equals("raft")) {
            Path data = Files.createTempDirectory(Path.of("target"), "metrics-");
            options.addAll(List.of("-Dfts.gc.raft.members=r0", "-Dfts.durability.dir=" + data.toAbsolutePath()));
        }
        cluster = new ReplicaCluster("met-" + UUID.randomUUID().toString().substring(0, 6), 1, false, options,
                Path.of("target", "child-logs"));
        Properties p = Clients.orbDefaults();
        orb = ORB.init(new String[0], p);
        Counter counter = CounterHelper.narrow(orb.string_to_object(Clients.corbaloc("127.0.0.1",
                cluster.ports().get(0), cluster.group(), "counter")));
        for (int i = 0; i < 20; i++) {
            counter.increment();
        }
        String[] text = new String[1];
        Waits.await(() -> (text[0] = scrape(port)).contains("fts_cast_latency_seconds_count")
                        && value(text[0], "fts_cast_latency_seconds_count") >= 20, Duration.ofSeconds(20),
                () -> "no cast latency for the 20 calls: " + text[0]);
        String t = text[0];
        for (String family : List.of("fts_order_committed{", "fts_order_delivered{", "fts_order_held{",
                "fts_order_role_info{", "fts_order_epoch_info{", "fts_order_recoveries_total{",
                "fts_order_sequencer_suspicions_total{", "fts_replica_serving{", "fts_replica_voters_info{",
                "fts_replica_pending_deliveries{", "jvm_memory_used_bytes{", "process_cpu_seconds_total")) {
            assertTrue(t.contains(family), gc + ": no " + family + " in\n" + t);
        }
        assertTrue(t.contains("# TYPE fts_order_recoveries_total counter"), t);
        assertEquals(List.of(), rulesReadingWhatIsNotScraped(t), gc + ": alert rules read metrics the scrape lacks");
        assertEquals(List.of(), dashboardReadingWhatIsNotScraped(t), gc + ": the dashboard reads metrics the scrape lacks");
        assertEquals(1.0, value(t, "fts_replica_group_size"), t);
        assertTrue(value(t, "fts_order_committed") >= 20, t);
    }

    /**
     * The shipped alert rules (config/fts-alerts.yml) whose expressions name a metric this scrape does not have, or
     * whose runbook annotation names no entry of docs/troubleshooting.md. Each rule is read as its lines: the alert,
     * its expr, its annotations.
     */
    static List<String> rulesReadingWhatIsNotScraped(String scrape) throws java.io.IOException {
        List<String> rules = Files.readAllLines(Path.of("..", "fts-dist", "src", "dist", "config", "fts-alerts.yml"));
        String troubleshooting = Files.readString(Path.of("..", "docs", "troubleshooting.md"));
        java.util.regex.Pattern metric = java.util.regex.Pattern.compile("\\b(?:fts|jvm|process)_[a-z0-9_]+\\b");
        java.util.regex.Pattern runbook = java.util.regex.Pattern.compile("runbook: \"docs/troubleshooting.md#([a-z0-9-]+)\"");
        List<String> wrong = new ArrayList<>();
        String alert = null;
        int count = 0;
        for (String line : rules) {
            String l = line.trim();
            if (l.startsWith("- alert: ")) {
                alert = l.substring("- alert: ".length());
                count++;
            } else if (l.startsWith("expr: ")) {
                java.util.regex.Matcher m = metric.matcher(l);
                while (m.find()) {
                    if (!scrape.contains("\n" + m.group() + "{") && !scrape.contains("\n" + m.group() + " ")) {
                        wrong.add(alert + " reads " + m.group());
                    }
                }
            } else if (l.startsWith("annotations: ")) {
                java.util.regex.Matcher m = runbook.matcher(l);
                if (!m.find()) {
                    wrong.add(alert + " names no runbook");
                } else if (!troubleshooting.contains("\n### " + alert + "\n")
                        || !m.group(1).equals(alert.toLowerCase(java.util.Locale.ROOT))) {
                    wrong.add(alert + "'s runbook #" + m.group(1) + " is no entry of docs/troubleshooting.md");
                }
            }
        }
        assertTrue(count >= 10, "the rules file lists " + count + " rules");
        return wrong;
    }

    /** The shipped Grafana dashboard (config/fts-grafana.json): well-formed JSON whose queries read scraped metrics. */
    static List<String> dashboardReadingWhatIsNotScraped(String scrape) throws java.io.IOException {
        String json = Files.readString(Path.of("..", "fts-dist", "src", "dist", "config", "fts-grafana.json"));
        JsonSyntax.check(json);
        java.util.regex.Matcher expr = java.util.regex.Pattern.compile("\"expr\": \"((?:[^\"\\\\]|\\\\.)*)\"")
                .matcher(json);
        java.util.regex.Pattern metric = java.util.regex.Pattern.compile("\\b(?:fts|jvm|process)_[a-z0-9_]+\\b");
        List<String> wrong = new ArrayList<>();
        int panels = 0;
        while (expr.find()) {
            panels++;
            java.util.regex.Matcher m = metric.matcher(expr.group(1));
            while (m.find()) {
                if (!scrape.contains("\n" + m.group() + "{") && !scrape.contains("\n" + m.group() + " ")) {
                    wrong.add(m.group() + " in " + expr.group(1));
                }
            }
        }
        assertTrue(panels >= 10, "the dashboard queries " + panels + " expressions");
        return wrong;
    }

    private static String scrape(int port) {
        try {
            HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                    + "/metrics")).timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 200 ? r.body() : "";
        } catch (java.io.IOException e) {
            return "";   // not listening yet
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The first sample of {@code family} (a name followed by labels), or NaN. */
    private static double value(String text, String family) {
        for (String line : text.split("\n")) {
            if (line.startsWith(family + "{")) {
                return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return Double.NaN;
    }
}
