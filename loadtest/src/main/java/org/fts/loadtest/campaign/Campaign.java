package org.fts.loadtest.campaign;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;

import org.fts.samples.Clients;
import org.fts.testkit.BatchCounters;
import org.fts.testkit.ReplicaCluster;

/**
 * {@code bin/fts campaign}: the core paper's experiment on this machine. For each series of a campaign
 * ({@link CampaignSpec}) it starts the replicas (separate JVMs, JGroups on 127.0.0.1; one plain-POA JVM for
 * {@code unreplicated}), then for each repetition and client count runs the campaign's load generator: The Grinder
 * ({@link GrinderRun}: warm-up, measured and tail phases, figures from Grinder's data logs) or the lean GIOP driver
 * ({@link LeanPoints}: one connection per client, phases in seconds); the replicas' own figures come from {@link
 * ReplicaSampler}. Writes {@code runs.csv} (every run), {@code campaign.csv} (runs averaged, with the standard
 * deviation of throughput) and {@code report/index.html}. Only with {@code --docs} does it also rewrite the
 * generated part of docs/performance.md for its generator: a quick look never dirties the tree.
 *
 * <p>Options: {@code --quick}, {@code --full}, {@code --campaign NAME|FILE}, {@code --series a,b} (a subset),
 * {@code --clients 1,10} (another ladder), {@code --runs N} (repetitions), {@code --generator grinder|lean},
 * {@code --out DIR} (default {@code target/campaigns}), {@code --docs} (rewrite docs/performance.md's section).
 */
public final class Campaign {
    private final CampaignSpec spec;
    private final Path dir;
    private final PrintStream out;

    Campaign(CampaignSpec spec, Path dir, PrintStream out) {
        this.spec = spec;
        this.dir = dir;
        this.out = out;
    }

    public static void main(String[] args) throws Exception {
        String name = null;
        Path outRoot = Path.of("target", "campaigns");
        boolean docs = false;
        List<String> only = null;
        List<Integer> ladder = null;
        Integer runs = null;
        String generator = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--quick" -> name = "quick";
                case "--full" -> name = "full";
                case "--campaign" -> name = args[++i];
                case "--series" -> only = List.of(args[++i].split(","));
                case "--clients" -> ladder = java.util.Arrays.stream(args[++i].split(",")).map(String::trim)
                        .map(Integer::valueOf).toList();
                case "--runs" -> runs = Integer.valueOf(args[++i]);
                case "--generator" -> generator = args[++i];
                case "--out" -> outRoot = Path.of(args[++i]);
                case "--docs" -> docs = true;
                default -> throw new IllegalArgumentException("unknown option " + args[i] + " (use --quick, --full,"
                        + " --campaign NAME|FILE, --series a,b, --clients 1,10, --runs N, --generator grinder|lean,"
                        + " --out DIR, --docs)");
            }
        }
        if (name == null) {
            throw new IllegalArgumentException("say which campaign: --quick, --full or --campaign NAME|FILE");
        }
        CampaignSpec spec = withGenerator(narrowed(CampaignSpec.load(name), only, ladder, runs), generator);
        Path dir = outRoot.resolve(spec.name() + "-"
                + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"))).toAbsolutePath();
        Campaign campaign = new Campaign(spec, dir, System.out);
        List<Point> points = campaign.run();
        Path report = Report.write(dir.resolve("report"), spec, points, Machine.describe());
        System.out.println("campaign " + spec.name() + ": " + dir.resolve("campaign.csv"));
        System.out.println("report: " + report);
        if (docs) {
            Path doc = Path.of("docs", "performance.md");
            PerformanceDoc.write(doc, dir.resolve("report"), spec, points, Machine.describe(),
                    "bin/fts campaign " + String.join(" ", args));
            System.out.println("updated " + doc.toAbsolutePath());
        }
        System.exit(0);   // JacORB and JGroups leave non-daemon threads behind in some failure paths
    }

    static CampaignSpec narrowed(CampaignSpec s, List<String> only, List<Integer> ladder, Integer runs) {
        List<CampaignSpec.Series> series = only == null ? s.series()
                : s.series().stream().filter(x -> only.contains(x.label())).toList();
        if (series.isEmpty()) {
            throw new IllegalArgumentException("no series of campaign " + s.name() + " is in " + only + "; it has "
                    + s.series().stream().map(CampaignSpec.Series::label).toList());
        }
        return new CampaignSpec(s.name(), s.replicas(), ladder == null ? s.clients() : ladder,
                runs == null ? s.repetitions() : runs,
                s.warmup(), s.measure(), s.pointTimeoutSeconds(), s.serverWarmup(), series, s.generator());
    }

    /** {@code spec} driven by {@code generator} instead of its own (null: keep it), with that generator's defaults. */
    static CampaignSpec withGenerator(CampaignSpec s, String generator) {
        if (generator == null || generator.equals(s.generator().kind())) {
            return s;
        }
        CampaignSpec.Generator g = switch (generator) {
            case "grinder" -> CampaignSpec.Generator.GRINDER;
            case "lean" -> new CampaignSpec.Generator("lean", 2, 5, 30);
            default -> throw new IllegalArgumentException("--generator " + generator + ": grinder or lean");
        };
        return new CampaignSpec(s.name(), s.replicas(), s.clients(), s.repetitions(), s.warmup(), s.measure(),
                s.pointTimeoutSeconds(), s.serverWarmup(), s.series(), g);
    }

    /** Runs every point and writes runs.csv and campaign.csv into the results folder; returns the averaged rows. */
    List<Point> run() throws Exception {
        Files.createDirectories(dir);
        out.println("campaign " + spec.name() + " -> " + dir);
        Path runsCsv = dir.resolve("runs.csv");
        Files.writeString(runsCsv, Point.HEADER + "\n");
        int total = spec.series().size() * spec.repetitions() * spec.clients().size();
        int done = 0;
        Map<String, List<Point>> byKey = new LinkedHashMap<>();
        int maxClients = Math.max(spec.clients().stream().mapToInt(Integer::intValue).max().orElse(1),
                spec.serverWarmup().enabled() ? spec.serverWarmup().clients() : 0);   // one object per client
        for (CampaignSpec.Series series : spec.series()) {
            out.printf("%s: starting %s%n", series.label(), series.unreplicated() ? "the unreplicated server"
                    : spec.replicas() + " replicas (" + series.properties() + ")");
            List<String> jvmOpts = new ArrayList<>(List.of("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"));
            series.properties().forEach((k, v) -> jvmOpts.add("-D" + k + "=" + v));
            String group = "camp-" + UUID.randomUUID().toString().substring(0, 6);
            try (ReplicaCluster cluster = new ReplicaCluster(group, spec.replicas(), series.unreplicated(), jvmOpts,
                    List.of("--hello-objects", Integer.toString(maxClients)), dir.resolve("replica-logs"))) {
                Path iogrs = dir.resolve("iogrs-" + series.label() + ".txt");
                StringBuilder lines = new StringBuilder();
                for (int i = 0; i < maxClients; i++) {
                    lines.append("hello-").append(i).append(' ').append(cluster.reference("hello-" + i)).append('\n');
                }
                Files.writeString(iogrs, lines);
                warmUp(series, cluster, iogrs, maxClients);
                for (int rep = 1; rep <= spec.repetitions(); rep++) {
                    for (int clients : spec.clients()) {
                        long started = System.nanoTime();
                        Point p = spec.generator().lean() ? LeanPoints.point(spec, series, cluster, clients)
                                : runPoint(series, cluster, iogrs, clients, rep);
                        done++;
                        out.printf("[%d/%d] %-12s clients=%-5d run %d/%d: %8.1f req/s  mean %7.2f ms  p99 %6.0f ms"
                                        + "  batch %6.2f  cast %8.1f us  errors %d  (%.0f s)%n", done, total,
                                series.label(), clients, rep, spec.repetitions(), p.throughputRps(), p.latMeanMs(),
                                p.latP99Ms(), p.batchMean(), p.castLatencyMeanUs(), p.errors(),
                                (System.nanoTime() - started) / 1e9);
                        Files.writeString(runsCsv, p.csv() + "\n", StandardOpenOption.APPEND);
                        byKey.computeIfAbsent(series.label() + "@" + clients, k -> new ArrayList<>()).add(p);
                    }
                }
            }
        }
        List<Point> points = byKey.values().stream().map(Point::average).toList();
        StringBuilder csv = new StringBuilder(Point.HEADER).append('\n');
        points.forEach(p -> csv.append(p.csv()).append('\n'));
        Files.writeString(dir.resolve("campaign.csv"), csv);
        return points;
    }

    /** The series' server warm-up, if the campaign has one: load whose figures are discarded. */
    private void warmUp(CampaignSpec.Series series, ReplicaCluster cluster, Path iogrs, int maxClients)
            throws Exception {
        long started = System.nanoTime();
        if (spec.generator().lean()) {
            int clients = Math.min(maxClients, 50);
            double rate = LeanPoints.warmUp(spec, cluster, clients);
            out.printf("%s: server warm-up, %d lean clients for %.0f s at %.0f calls/s, not measured%n",
                    series.label(), clients, spec.generator().serverWarmupSeconds(), rate);
            return;
        }
        CampaignSpec.ServerWarmup w = spec.serverWarmup();
        if (!w.enabled()) {
            return;
        }
        Path warmDir = Files.createDirectories(dir.resolve("runs").resolve(series.label()).resolve("server-warmup"));
        try (ReplicaSampler sampler = new ReplicaSampler(cluster)) {
            GrinderRun.run(warmDir, w.clients(), w.calls(), 0, iogrs, Clients.ftDefaults(),
                    System.currentTimeMillis() + spec.pointTimeoutSeconds() * 1000L, sampler);
        }
        out.printf("%s: server warm-up, %d clients x %d calls, not measured (%.0f s)%n", series.label(), w.clients(),
                w.calls(), (System.nanoTime() - started) / 1e9);
    }

    private Point runPoint(CampaignSpec.Series series, ReplicaCluster cluster, Path iogrs, int clients, int rep)
            throws Exception {
        int warmup = spec.warmup().perClient(clients);
        int measure = spec.measure().perClient(clients);
        Path pointDir = Files.createDirectories(dir.resolve("runs").resolve(series.label())
                .resolve("c" + clients + "-r" + rep));
        long deadline = System.currentTimeMillis() + spec.pointTimeoutSeconds() * 1000L;
        Properties orb = Clients.ftDefaults();
        List<ReplicaSampler.Sample> samples;
        ReplicaSampler sampler = new ReplicaSampler(cluster);
        try {
            GrinderRun.run(pointDir, clients, warmup, measure, iogrs, orb, deadline, sampler);
            samples = sampler.finish();
        } finally {
            sampler.close();
        }
        DataLog log = DataLog.read(pointDir.resolve("logs"));
        long missing = Math.max(0, (long) clients * measure - log.measuredCalls());   // cut off by the deadline
        ReplicaSampler.Sample s0 = ReplicaSampler.atOrBefore(samples, log.measuredStart());
        ReplicaSampler.Sample s1 = ReplicaSampler.atOrAfter(samples, log.measuredEnd());
        BatchCounters d = s1.counters().minus(s0.counters());
        long calls = log.callsEndedBetween(s0.atMillis(), s1.atMillis());
        double rssMb = samples.stream().mapToLong(ReplicaSampler.Sample::maxRssKb).max().orElse(0) / 1024.0;
        return new Point(series.label(), series.policy(), series.params(),
                series.unreplicated() ? 1 : spec.replicas(), clients, 1, log.throughput(), 0, log.meanMillis(),
                log.percentileMillis(0.5), log.percentileMillis(0.99),
                d.batches() == 0 ? 0 : (double) d.messages() / d.batches(),
                d.castCount() == 0 ? 0 : d.castSumNanos() / 1e3 / d.castCount(),
                d.delayCount() == 0 ? 0 : d.delaySumNanos() / 1e3 / d.delayCount(),
                calls == 0 ? 0 : (double) (s1.cpuMicros() - s0.cpuMicros()) / calls,
                calls == 0 ? 0 : (double) (s1.clientCpuMicros() - s0.clientCpuMicros()) / calls, rssMb,
                log.errors() + missing);
    }
}
