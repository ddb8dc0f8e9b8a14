package org.fts.loadtest.campaign;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.fts.loadtest.load.Lean;
import org.fts.testkit.BatchCounters;
import org.fts.testkit.ReplicaCluster;

/**
 * A campaign's points with the lean driver ({@code generator = lean}): each client is one connection of {@code bin/fts
 * load}'s GIOP driver, on its own {@code HelloObj}, in a closed loop; phases are in seconds. The replicas are sampled
 * exactly at the measured window's edges, so every figure (throughput, latency at microsecond resolution, batches,
 * the replicas' CPU per call, the driver's own) covers the same window.
 */
final class LeanPoints {
    private LeanPoints() {
    }

    /** Unmeasured load before a series' first point: the JIT compiler settles after 25-30 s of load on 2 cores. */
    static double warmUp(CampaignSpec spec, ReplicaCluster cluster, int clients) throws Exception {
        double s = spec.generator().serverWarmupSeconds();
        if (s == 0) {
            return 0;
        }
        Lean.Result r = Lean.closedLoop(references(cluster, clients), Duration.ZERO,
                Duration.ofMillis(Math.round(s * 1000)), () -> { }, () -> { });
        return r.callsPerSecond();
    }

    static Point point(CampaignSpec spec, CampaignSpec.Series series, ReplicaCluster cluster, int clients)
            throws Exception {
        CampaignSpec.Generator g = spec.generator();
        ReplicaSampler sampler = new ReplicaSampler(cluster);
        Lean.Result r;
        List<ReplicaSampler.Sample> samples;
        try {
            r = Lean.closedLoop(references(cluster, clients), Duration.ofMillis(Math.round(g.warmupSeconds() * 1000)),
                    Duration.ofMillis(Math.round(g.measureSeconds() * 1000)), () -> sample(sampler),
                    () -> sample(sampler));
            samples = sampler.finish();
        } finally {
            sampler.close();
        }
        List<ReplicaSampler.Sample> edges = samples.stream().filter(ReplicaSampler.Sample::onDemand).toList();
        if (edges.size() != 2) {
            throw new IllegalStateException("expected the window's two samples, got " + edges.size());
        }
        ReplicaSampler.Sample s0 = edges.get(0);
        ReplicaSampler.Sample s1 = edges.get(1);
        BatchCounters d = s1.counters().minus(s0.counters());
        double rssMb = samples.stream().mapToLong(ReplicaSampler.Sample::maxRssKb).max().orElse(0) / 1024.0;
        return new Point(series.label(), series.policy(), series.params(), series.unreplicated() ? 1 : spec.replicas(),
                clients, 1, r.callsPerSecond(), 0, r.meanUs() / 1000, r.p50Us() / 1000, r.p99Us() / 1000,
                d.batches() == 0 ? 0 : (double) d.messages() / d.batches(),
                d.castCount() == 0 ? 0 : d.castSumNanos() / 1e3 / d.castCount(),
                d.delayCount() == 0 ? 0 : d.delaySumNanos() / 1e3 / d.delayCount(),
                r.calls() == 0 ? 0 : (double) (s1.cpuMicros() - s0.cpuMicros()) / r.calls(), r.driverCpuUsPerCall(),
                rssMb, r.errors());
    }

    private static void sample(ReplicaSampler sampler) {
        try {
            sampler.sampleNow();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static List<String> references(ReplicaCluster cluster, int clients) {
        List<String> refs = new ArrayList<>();
        for (int i = 0; i < clients; i++) {
            refs.add(cluster.reference("hello-" + i));
        }
        return refs;
    }
}
