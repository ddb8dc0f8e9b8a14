package org.fts.loadtest.campaign;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.fts.testkit.BatchCounters;
import org.fts.testkit.ReplicaCluster;

/**
 * Samples the replicas while a Grinder run goes on, every {@link #PERIOD_MS} ms: their cumulative batching
 * counters (asked over stdin), their CPU time and resident set size ({@code /proc/<pid>/stat} and
 * {@code status}, so Linux only: elsewhere both read 0). The campaign takes differences between the samples
 * that bracket the measured window.
 */
final class ReplicaSampler implements AutoCloseable {
    static final long PERIOD_MS = 500;
    /** Linux's USER_HZ: /proc reports CPU time in these ticks. */
    private static final long TICKS_PER_SECOND = 100;

    /**
     * One sample: when, the counters summed over the replicas, their CPU time summed, the largest RSS, the CPU
     * time of the load generator's processes (Grinder agent and workers) summed, and whether it was taken on
     * demand ({@link #sampleNow()}) rather than by the period.
     */
    record Sample(long atMillis, BatchCounters counters, long cpuMicros, long maxRssKb, long clientCpuMicros,
                  boolean onDemand) {
    }

    private final ReplicaCluster cluster;
    private final List<Sample> samples = new CopyOnWriteArrayList<>();
    private final Thread thread;
    private volatile boolean stop;
    private volatile Exception failure;
    private volatile ProcessHandle clients;

    ReplicaSampler(ReplicaCluster cluster) throws IOException, InterruptedException {
        this.cluster = cluster;
        samples.add(sample(false));
        thread = new Thread(this::loop, "replica-sampler");
        thread.setDaemon(true);
        thread.start();
    }

    private void loop() {
        while (!stop) {
            try {
                Thread.sleep(PERIOD_MS);   // a sampling period, not a wait for a condition
                samples.add(sample(false));
            } catch (InterruptedException e) {
                return;
            } catch (Exception e) {
                failure = e;
                return;
            }
        }
    }

    private Sample sample(boolean onDemand) throws IOException, InterruptedException {
        long at = System.currentTimeMillis();
        BatchCounters sum = BatchCounters.ZERO;
        for (BatchCounters c : cluster.stats()) {
            sum = sum.plus(c);
        }
        long cpu = 0;
        long rss = 0;
        for (long pid : cluster.pids()) {
            cpu += cpuMicros(pid);
            rss = Math.max(rss, rssKb(pid));
        }
        long clientCpu = 0;
        ProcessHandle agent = clients;
        if (agent != null) {
            clientCpu = cpuMicros(agent.pid());
            for (ProcessHandle worker : agent.descendants().toList()) {
                clientCpu += cpuMicros(worker.pid());
            }
        }
        return new Sample(at, sum, cpu, rss, clientCpu, onDemand);
    }

    /** From now on, also sample the CPU time of {@code agent} and its descendants. */
    void clients(ProcessHandle agent) {
        clients = agent;
    }

    /** Stops sampling; returns every sample, oldest first. */
    List<Sample> finish() throws Exception {
        close();
        if (failure != null) {
            throw failure;
        }
        return List.copyOf(samples);
    }

    /** Takes a sample now (e.g. just before the load generator exits). */
    void sampleNow() throws IOException, InterruptedException {
        samples.add(sample(true));
    }

    @Override
    public void close() throws InterruptedException {
        stop = true;
        thread.interrupt();
        thread.join(10_000);
    }

    /** The last sample taken at or before {@code t}, else the first. */
    static Sample atOrBefore(List<Sample> samples, long t) {
        Sample best = samples.get(0);
        for (Sample s : samples) {
            if (s.atMillis() <= t) {
                best = s;
            }
        }
        return best;
    }

    /** The first sample taken at or after {@code t}, else the last. */
    static Sample atOrAfter(List<Sample> samples, long t) {
        for (Sample s : samples) {
            if (s.atMillis() >= t) {
                return s;
            }
        }
        return samples.get(samples.size() - 1);
    }

    private static long cpuMicros(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            // fields after the parenthesised command name: state is field 3, utime 14, stime 15
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]);
            return ticks * 1_000_000 / TICKS_PER_SECOND;
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    private static long rssKb(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", ""));
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux, or the process is gone
        }
        return 0;
    }
}
