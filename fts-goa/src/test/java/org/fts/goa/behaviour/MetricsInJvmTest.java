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
            assertTrue(after.contains("# TYPE fts_replica_requests_ordered_total counter"), after);
            assertTrue(value(after, "fts_replica_requests_ordered_total", "r2") >= 20, after);
            assertEquals(0.0, value(after, "fts_replica_requests_timed_out_total", "r2"), after);
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

    /** A PKCS12 key pair for 127.0.0.1, made with the JDK's keytool. */
    private static java.nio.file.Path keystore(java.nio.file.Path dir, String password) throws Exception {
        java.nio.file.Path store = dir.resolve("metrics.p12");
        java.nio.file.Path keytool = java.nio.file.Path.of(System.getProperty("java.home"), "bin", "keytool");
        Process p = new ProcessBuilder(keytool.toString(), "-genkeypair", "-alias", "metrics", "-keyalg", "RSA",
                "-keysize", "2048", "-validity", "2", "-dname", "CN=127.0.0.1", "-ext", "SAN=ip:127.0.0.1",
                "-storetype", "PKCS12", "-keystore", store.toString(), "-storepass", password, "-keypass", password)
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new IllegalStateException("keytool failed: " + out);
        }
        return store;
    }

    /** docs/metrics.md, "Who may read it": HTTPS with the configured key pair, and basic authentication. */
    @Test
    void overHttpsWithBasicAuthenticationOnlyAScrapeWithThePasswordReadsTheFigures(@org.junit.jupiter.api.io.TempDir
            java.nio.file.Path dir) throws Exception {
        String password = "metrics-store-pw";
        java.nio.file.Path store = keystore(dir, password);
        java.nio.file.Files.writeString(dir.resolve("store.pw"), password + "\n");
        java.nio.file.Files.writeString(dir.resolve("scrape.auth"), "prometheus:s3cret-scrape\n");
        try (InJvmReplicas r = new InJvmReplicas(3)) {
            int port = org.fts.process.Ports.free("127.0.0.1");
            Properties more = new Properties();
            more.setProperty("fts.metrics.port", Integer.toString(port));
            more.setProperty("fts.metrics.keystore", store.toString());
            more.setProperty("fts.metrics.keystore_password_file", dir.resolve("store.pw").toString());
            more.setProperty("fts.metrics.basic_auth_file", dir.resolve("scrape.auth").toString());
            r.stop(2);
            r.startReplica(2, List.of(new HelloObjImpl(), new CounterImpl(), new AccountImpl()), more);
            java.security.KeyStore trusted = java.security.KeyStore.getInstance(store.toFile(), password.toCharArray());
            javax.net.ssl.TrustManagerFactory tmf = javax.net.ssl.TrustManagerFactory.getInstance(
                    javax.net.ssl.TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(trusted);
            javax.net.ssl.SSLContext tls = javax.net.ssl.SSLContext.getInstance("TLS");
            tls.init(null, tmf.getTrustManagers(), null);
            HttpClient https = HttpClient.newBuilder().sslContext(tls).connectTimeout(Duration.ofSeconds(5)).build();
            URI uri = URI.create("https://127.0.0.1:" + port + "/metrics");
            java.util.function.Function<String, HttpResponse<String>> get = credentials -> {
                HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10));
                if (credentials != null) {
                    b.header("Authorization", "Basic " + java.util.Base64.getEncoder().encodeToString(
                            credentials.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
                }
                try {
                    return https.send(b.build(), HttpResponse.BodyHandlers.ofString());
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            };
            HttpResponse<String> ok = get.apply("prometheus:s3cret-scrape");
            assertEquals(200, ok.statusCode());
            assertTrue(ok.body().contains("fts_replica_serving{group=\"goa\",member=\"r2\"}"), ok.body());
            assertEquals(401, get.apply(null).statusCode());
            assertEquals(401, get.apply("prometheus:wrong").statusCode());
            assertEquals(401, get.apply("grafana:s3cret-scrape").statusCode());
            // plain HTTP to the HTTPS port is not answered with the figures
            String plain = scrapeNow(port);
            assertTrue(!plain.contains("fts_replica_serving"), plain);
        }
    }

    @Test
    void aKeystoreWithoutItsPasswordFileStopsTheStartNamingTheKey() throws Exception {
        try (InJvmReplicas r = new InJvmReplicas(3)) {
            Properties more = new Properties();
            more.setProperty("fts.metrics.port", Integer.toString(org.fts.process.Ports.free("127.0.0.1")));
            more.setProperty("fts.metrics.keystore", "/etc/fts/metrics.p12");
            r.stop(2);
            org.fts.config.ConfigException e = assertThrows(org.fts.config.ConfigException.class, () ->
                    r.startReplica(2, List.of(new HelloObjImpl(), new CounterImpl(), new AccountImpl()), more));
            assertTrue(e.getMessage().contains("fts.metrics.keystore_password_file"), e.getMessage());
        }
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
