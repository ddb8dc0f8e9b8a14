package org.fts.goa.behaviour;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Properties;

import fts_goa_test.CounterHelper;
import org.fts.config.ListenFailure;
import org.fts.process.Waits;
import org.junit.jupiter.api.Test;

/** The replica's Prometheus endpoint (fts.metrics.port, docs/metrics.md), scraped as Prometheus does. */
class MetricsInJvmTest {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private static String scrape(int port) throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), r.body());
        return r.body();
    }

    /** A scrape for a wait's condition: a failure to connect is "not yet". */
    private static String scrapeNow(int port) {
        try {
            return scrape(port);
        } catch (java.io.IOException e) {
            return "";
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** The value of {@code family} for replica {@code member}, or NaN if the scrape has none. */
    private static double value(String text, String family, String member) {
        for (String line : text.split("\n")) {
            if (line.startsWith(family + "{") && line.contains("member=\"" + member + "\"")) {
                return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return Double.NaN;
    }

    @Test
    void aScrapeShowsTheReplicasStandingAndItsCountersMoveWithTheCalls() throws Exception {
        try (InJvmReplicas r = new InJvmReplicas(3)) {
            int port = org.fts.process.Ports.free("127.0.0.1");
            Properties more = new Properties();
            more.setProperty("fts.metrics.port", Integer.toString(port));
            r.stop(2);
            r.startReplica(2, List.of(new HelloObjImpl(), new CounterImpl(), new AccountImpl()), more);
            Waits.await(() -> value(scrapeNow(port), "fts_replica_serving", "r2") == 1.0, Duration.ofSeconds(30),
                    () -> "r2 does not serve, as its metrics say");
            String first = scrape(port);
            assertTrue(first.contains("fts_replica_view_info{group=\"goa\",member=\"r2\",value=\""), first);
            assertEquals(1.0, value(first, "fts_replica_primary", "r2"), first);
            double sent = value(first, "fts_batching_messages_sent_total", "r2");
            assertTrue(sent >= 0, first);
            // counters are counters; the JVM's own metrics and the cast latency's histogram are there too
            assertTrue(first.contains("# TYPE fts_batching_messages_sent_total counter"), first);
            assertTrue(first.contains("# TYPE fts_replica_reply_cache_size gauge"), first);
            assertTrue(first.contains("jvm_memory_used_bytes{area=\"heap\"}"), first);
            assertTrue(first.contains("# TYPE fts_cast_latency_seconds histogram"), first);
            double cast = value(first, "fts_cast_latency_seconds_count", "r2");

            var counter = CounterHelper.narrow(r.at(2, "counter"));
            for (int i = 0; i < 20; i++) {
                counter.increment();
            }
            Waits.await(() -> value(scrapeNow(port), "fts_batching_messages_sent_total", "r2") >= sent + 20,
                    Duration.ofSeconds(10), () -> "r2's messages sent did not count the 20 calls");
            String after = scrape(port);
            assertTrue(value(after, "fts_cast_latency_seconds_count", "r2") >= cast + 20, after);
            assertEquals(value(after, "fts_cast_latency_seconds_count", "r2"), bucket(after, "+Inf", "r2"), after);
            assertTrue(bucket(after, "1.0E-4", "r2") <= bucket(after, "2.5", "r2"), after);
        }
    }

    /** The cumulative count of the cast latency's bucket {@code le} for replica {@code member}, or NaN. */
    private static double bucket(String text, String le, String member) {
        for (String line : text.split("\n")) {
            if (line.startsWith("fts_cast_latency_seconds_bucket{") && line.contains("member=\"" + member + "\"")
                    && line.contains("le=\"" + le + "\"")) {
                return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return Double.NaN;
    }

    @Test
    void aMetricsPortThatIsTakenStopsTheStartNamingTheKey() throws Exception {
        try (InJvmReplicas r = new InJvmReplicas(3);
             java.net.ServerSocket taken = new java.net.ServerSocket(0, 1,
                     java.net.InetAddress.getByName("127.0.0.1"))) {
            Properties more = new Properties();
            more.setProperty("fts.metrics.port", Integer.toString(taken.getLocalPort()));
            r.stop(2);
            ListenFailure e = assertThrows(ListenFailure.class, () -> r.startReplica(2,
                    List.of(new HelloObjImpl(), new CounterImpl(), new AccountImpl()), more));
            assertTrue(e.getMessage().contains("fts.metrics.port is " + taken.getLocalPort()), e.getMessage());
            // the failed start left no member behind, and the others serve on
            javax.management.ObjectName r0 = new javax.management.ObjectName(
                    "org.fts:type=Replica,group=\"goa\",member=\"r0\"");
            Waits.await(() -> view(r0).split(",").length == 2, Duration.ofSeconds(20),
                    () -> "r0's view still has a third member");
            CounterHelper.narrow(r.at(0, "counter")).increment();
        }
    }

    private static String view(javax.management.ObjectName replica) {
        try {
            return (String) java.lang.management.ManagementFactory.getPlatformMBeanServer()
                    .getAttribute(replica, "View");
        } catch (javax.management.JMException e) {
            throw new IllegalStateException(e);
        }
    }
}
