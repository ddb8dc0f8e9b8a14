package org.fts.goa;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

import javax.management.Attribute;
import javax.management.JMException;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanServer;
import javax.management.ObjectName;

import io.prometheus.metrics.exporter.httpserver.HTTPServer;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.DataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import org.fts.batching.BatchStats;
import org.fts.batching.Histogram;
import org.fts.config.ConfigKey;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The replica's Prometheus endpoint ({@code fts.metrics.port}; off by default): {@code GET /metrics} in the text
 * format, on the configured address only. It exposes what JMX exposes, read at each scrape: every attribute of this
 * JVM's FTS MBeans ({@code org.fts:type=Replica|Batching}, the order's {@code jgroups:type=fts-order}, on either
 * binding) as {@code fts_<type>_<attribute>} labelled by the MBean's name (group and member, or cluster): a counter
 * ({@code _total}) where the attribute is marked {@link org.fts.config.Counter}, else a gauge; a boolean is 1 or 0;
 * a text attribute (the view, the role) is a gauge of 1 labelled {@code value}. Besides: the cast latency as a
 * histogram ({@code fts_cast_latency_seconds}), and the JVM's own metrics ({@code jvm_*}, {@code process_*}). Names
 * and alert rules: docs/metrics.md. Never fatal once started: an MBean that fails to answer is left out of that
 * scrape.
 */
final class MetricsEndpoint implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(MetricsEndpoint.class);

    static final ConfigKey<Integer> PORT = ConfigKey.integer("fts.metrics.port", 0, 0, 65535, "port",
            "the replica's Prometheus endpoint (GET /metrics: what JMX exposes, docs/metrics.md), on "
                    + "fts.metrics.address; 0: off");
    static final ConfigKey<String> ADDRESS = ConfigKey.optionalString("fts.metrics.address",
            "the address the Prometheus endpoint listens on; empty: the replica's own (JacORB's OAIAddr, the host "
                    + "its references name)");
    static final List<ConfigKey<?>> KEYS = List.of(PORT, ADDRESS, MetricsSecurity.KEYSTORE,
            MetricsSecurity.KEYSTORE_PASSWORD_FILE, MetricsSecurity.BASIC_AUTH_FILE);

    /** The MBeans whose attributes are exported, by ObjectName pattern. */
    private static final List<String> PATTERNS = List.of("org.fts:*", "jgroups:type=fts-order,*");
    /** Text attributes longer than this are cut (a label value). */
    private static final int MAX_TEXT = 200;
    /** The cast latency histogram's bounds, in seconds (the last bucket, +Inf, is added). */
    static final double[] LATENCY_BOUNDS = {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
        0.25, 0.5, 1, 2.5};

    private final HTTPServer server;

    private MetricsEndpoint(HTTPServer server) {
        this.server = server;
    }

    /**
     * Starts the endpoint if {@code fts.metrics.port} is set; {@code host} is the replica's address.
     *
     * @return the endpoint, or null when off
     * @throws org.fts.config.ListenFailure naming the key when the port cannot be bound (a restart may succeed)
     */
    static MetricsEndpoint start(Properties props, String host, BatchStats batching, Labels replica) {
        int port = PORT.get(props);
        if (port == 0) {
            return null;
        }
        String address = ADDRESS.get(props).isEmpty() ? host : ADDRESS.get(props);
        com.sun.net.httpserver.HttpsConfigurator https = MetricsSecurity.https(props);   // errors name their key
        com.sun.net.httpserver.Authenticator auth = MetricsSecurity.basicAuth(props);
        if (auth != null && https == null) {
            LOG.warn("metrics: {} is set without {}: scrapes send the password in the clear",
                    MetricsSecurity.BASIC_AUTH_FILE.name(), MetricsSecurity.KEYSTORE.name());
        }
        PrometheusRegistry registry = new PrometheusRegistry();
        registry.register((MultiCollector) MetricsEndpoint::collect);
        registry.register(() -> castLatency(batching, replica));
        JvmMetrics.builder().register(registry);   // heap, GC, threads, CPU, file descriptors
        try {
            HTTPServer.Builder b = HTTPServer.builder().hostname(address).port(port).registry(registry);
            if (https != null) {
                b.httpsConfigurator(https);
            }
            if (auth != null) {
                b.authenticator(auth);
            }
            HTTPServer s = b.buildAndStart();
            LOG.info("metrics: {}://{}:{}/metrics (fts.metrics.port){}", https != null ? "https" : "http", address,
                    s.getPort(), auth != null ? ", basic authentication" : "");
            return new MetricsEndpoint(s);
        } catch (IOException | RuntimeException e) {
            throw new org.fts.config.ListenFailure(PORT.name(), "is " + port + ", but the metrics endpoint cannot "
                    + "listen on " + address + ":" + port + ": " + e, e);
        }
    }

    @Override
    public void close() {
        server.close();
    }

    /**
     * The cast latency (a request's cast to its delivery here: the order's share of a call) as a classic histogram in
     * seconds, cumulative since the replica started: {@code histogram_quantile(0.99, rate(..._bucket[5m]))} gives a
     * windowed percentile. A bucket's count leaves out values in the cell of about 6% that straddles its bound
     * ({@link Histogram#cumulative}).
     */
    static HistogramSnapshot castLatency(BatchStats batching, Labels replica) {
        long[] boundsNanos = new long[LATENCY_BOUNDS.length];
        for (int i = 0; i < boundsNanos.length; i++) {
            boundsNanos[i] = Math.round(LATENCY_BOUNDS[i] * 1e9);
        }
        Histogram.Cumulative c = batching.castLatencyHistogram(boundsNanos);
        double[] bounds = java.util.Arrays.copyOf(LATENCY_BOUNDS, LATENCY_BOUNDS.length + 1);
        bounds[bounds.length - 1] = Double.POSITIVE_INFINITY;
        long[] counts = new long[bounds.length];
        long below = 0;
        for (int i = 0; i < boundsNanos.length; i++) {
            counts[i] = c.atOrBelow()[i] - below;
            below = c.atOrBelow()[i];
        }
        counts[counts.length - 1] = c.count() - below;
        return HistogramSnapshot.builder().name("fts_cast_latency_seconds")
                .help("a request's cast to its delivery at this replica (the order's share of a call), since start")
                .dataPoint(HistogramSnapshot.HistogramDataPointSnapshot.builder()
                        .classicHistogramBuckets(ClassicHistogramBuckets.of(bounds, counts)).sum(c.sum() / 1e9)
                        .labels(replica).build())
                .build();
    }

    /** One scrape: every exported MBean's attributes, grouped into one family per (type, attribute). */
    static MetricSnapshots collect() {
        MBeanServer mbs = ManagementFactory.getPlatformMBeanServer();
        Map<String, List<DataPointSnapshot>> families = new TreeMap<>();
        Map<String, String> help = new TreeMap<>();
        for (String pattern : PATTERNS) {
            try {
                for (ObjectName on : mbs.queryNames(new ObjectName(pattern), null)) {
                    read(mbs, on, families, help);
                }
            } catch (JMException e) {
                LOG.debug("metrics: {}: {}", pattern, e.toString());
            }
        }
        List<MetricSnapshot> out = new ArrayList<>();
        families.forEach((name, points) -> {
            // one type per family, the first point's: a point of the other (two MBeans declaring one attribute
            // differently) is left out of this scrape rather than fail it
            if (points.get(0) instanceof CounterSnapshot.CounterDataPointSnapshot) {
                CounterSnapshot.Builder b = CounterSnapshot.builder().name(name).help(help.get(name));
                points.stream().filter(p -> p instanceof CounterSnapshot.CounterDataPointSnapshot)
                        .forEach(p -> b.dataPoint((CounterSnapshot.CounterDataPointSnapshot) p));
                out.add(b.build());
            } else {
                GaugeSnapshot.Builder b = GaugeSnapshot.builder().name(name).help(help.get(name));
                points.stream().filter(p -> p instanceof GaugeSnapshot.GaugeDataPointSnapshot)
                        .forEach(p -> b.dataPoint((GaugeSnapshot.GaugeDataPointSnapshot) p));
                out.add(b.build());
            }
        });
        return new MetricSnapshots(out);
    }

    private static void read(MBeanServer mbs, ObjectName on, Map<String, List<DataPointSnapshot>> families,
                             Map<String, String> help) {
        String type = on.getKeyProperty("type");
        if (type == null) {
            return;
        }
        type = type.startsWith("fts-") ? type.substring(4) : type;   // jgroups:type=fts-order: fts_order_*
        Labels labels = Labels.EMPTY;
        for (String key : new TreeMap<>(on.getKeyPropertyList()).keySet()) {
            if (!key.equals("type")) {
                String value = on.getKeyProperty(key);
                labels = labels.add(key, value.startsWith("\"") ? ObjectName.unquote(value) : value);
            }
        }
        try {
            MBeanAttributeInfo[] infos = mbs.getMBeanInfo(on).getAttributes();
            String[] names = java.util.Arrays.stream(infos).map(MBeanAttributeInfo::getName).toArray(String[]::new);
            Map<String, Boolean> counters = new java.util.HashMap<>();
            for (MBeanAttributeInfo info : infos) {
                counters.put(info.getName(), "counter".equals(info.getDescriptor().getFieldValue("metricType")));
            }
            for (Attribute a : mbs.getAttributes(on, names).asList()) {
                String family = "fts_" + snake(type) + "_" + snake(a.getName());
                Object v = a.getValue();
                DataPointSnapshot point;
                if (v instanceof Number n && counters.getOrDefault(a.getName(), false)) {
                    if (n.doubleValue() < 0) {
                        continue;   // not kept here (the log's syncs without a log): no counter
                    }
                    point = CounterSnapshot.CounterDataPointSnapshot.builder().value(n.doubleValue()).labels(labels)
                            .build();
                } else if (v instanceof Number n) {
                    point = GaugeSnapshot.GaugeDataPointSnapshot.builder().value(n.doubleValue()).labels(labels).build();
                } else if (v instanceof Boolean bool) {
                    point = GaugeSnapshot.GaugeDataPointSnapshot.builder().value(bool ? 1 : 0).labels(labels).build();
                } else if (v instanceof String text) {
                    family += "_info";
                    String cut = text.length() > MAX_TEXT ? text.substring(0, MAX_TEXT) : text;
                    point = GaugeSnapshot.GaugeDataPointSnapshot.builder().value(1).labels(labels.add("value", cut))
                            .build();
                } else {
                    continue;
                }
                families.computeIfAbsent(family, f -> new ArrayList<>()).add(point);
                help.putIfAbsent(family, "JMX " + on.getDomain() + ":type=" + type + " attribute " + a.getName());
            }
        } catch (JMException | RuntimeException e) {
            LOG.debug("metrics: {}: {}", on, e.toString());
        }
    }

    /** {@code ReplyCacheSize} to {@code reply_cache_size}, {@code fts-order} to {@code fts_order}. */
    static String snake(String name) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (Character.isUpperCase(c) && i > 0 && !Character.isUpperCase(name.charAt(i - 1))) {
                b.append('_');
            }
            b.append(Character.isLetterOrDigit(c) ? Character.toLowerCase(c) : '_');
        }
        return b.toString().toLowerCase(Locale.ROOT);
    }
}
