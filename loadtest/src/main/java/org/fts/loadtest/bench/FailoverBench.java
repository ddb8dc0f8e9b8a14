package org.fts.loadtest.bench;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.UUID;

import org.fts.samples.Clients;
import org.fts.samples.FailoverWorkload;
import org.fts.testkit.ReplicaCluster;
import org.omg.CORBA.ORB;

/**
 * {@code bin/fts bench failover}: the exactly-once workload (client threads with the FTS interceptor calling
 * {@code Counter.increment()} on 3 replica processes) with one {@code kill -9} a quarter of the way in. Prints
 * what clients saw: the stall (max and p99 latency of the calls in flight at the kill), the calls' p50
 * before it, and how many values were lost or returned twice; the last line is grep-able:
 * {@code failover-bench stall_max_ms=... stall_p99_ms=... lost=0 dup=0}.
 *
 * <p>Options: {@code --clients N} (20), {@code --calls N} per client (200), {@code --kill attached|coordinator}
 * (attached: the replica 60% of the clients use, not the coordinator; coordinator: r0, which sequences the
 * group), {@code --stop kill|term} (kill: {@code kill -9}, a crash; term: SIGTERM, a graceful leave),
 * {@code --runs N} (1); {@code -Dkey=value} options go to the replicas.
 */
public final class FailoverBench {
    private FailoverBench() {
    }

    public static void main(String[] args) throws Exception {
        int clients = 20;
        int calls = 200;
        int runs = 1;
        String kill = "attached";
        String stop = "kill";
        List<String> replicaOptions = new java.util.ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            if (args[i].startsWith("-D")) {   // for the replicas, e.g. -Dfts.jgroups.stack=my-stack.xml
                replicaOptions.add(args[i]);
                continue;
            }
            switch (args[i]) {
                case "--clients" -> clients = Integer.parseInt(args[++i]);
                case "--calls" -> calls = Integer.parseInt(args[++i]);
                case "--runs" -> runs = Integer.parseInt(args[++i]);
                case "--kill" -> kill = args[++i];
                case "--stop" -> stop = args[++i];
                default -> throw new IllegalArgumentException("unknown option " + args[i]
                        + " (use --clients N, --calls N, --kill attached|coordinator, --stop kill|term, --runs N, -Dkey=value)");
            }
        }
        if (!kill.equals("attached") && !kill.equals("coordinator")) {
            throw new IllegalArgumentException("--kill is attached or coordinator, not " + kill);
        }
        if (!stop.equals("kill") && !stop.equals("term")) {
            throw new IllegalArgumentException("--stop is kill (kill -9, a crash) or term (SIGTERM, a graceful leave), "
                    + "not " + stop);
        }
        for (int run = 1; run <= runs; run++) {
            once(clients, calls, kill.equals("attached") ? 1 : 0, stop.equals("term"), replicaOptions, run);
        }
    }

    private static void once(int clients, int calls, int victim, boolean term, List<String> replicaOptions, int run)
            throws Exception {
        String group = "fo-bench-" + UUID.randomUUID().toString().substring(0, 6);
        try (ReplicaCluster cluster = new ReplicaCluster(group, 3, false, replicaOptions,
                Path.of("target", "bench-logs"))) {
            ORB orb = ORB.init(new String[0], Clients.ftDefaults());
            try {
                FailoverWorkload.Result r = FailoverWorkload.run(orb, cluster.reference("counter"),
                        FailoverWorkload.homes(clients, 3, 1), calls, clients * calls / 4,
                        progress -> {
                            if (term) {
                                cluster.terminate(victim);
                            } else {
                                cluster.kill(victim);
                            }
                        }, Duration.ofSeconds(300));
                List<Double> spanning = r.spanning();
                double[] before = r.calls().stream().filter(c -> c.endNanos() < r.faultNanos())
                        .mapToDouble(FailoverWorkload.Call::millis).sorted().toArray();
                System.out.printf(Locale.ROOT, "run %d: " + (term ? "stopped (SIGTERM)" : "killed")
                                + " r%d (%s) after %d calls; %d calls in flight at the fault;"
                                + " p50 before the kill %.2f ms; errors %d%n", run, victim,
                        victim == 0 ? "the coordinator/sequencer" : "60% of the clients' replica", clients * calls / 4,
                        spanning.size(), percentile(before, 0.50), r.errors().size());
                r.errors().stream().limit(5).forEach(e -> System.out.println("  error: " + e));
                double[] s = spanning.stream().mapToDouble(Double::doubleValue).toArray();
                System.out.printf(Locale.ROOT, "failover-bench kill=%s stop=%s clients=%d calls=%d stall_max_ms=%.0f "
                                + "stall_p99_ms=%.0f lost=%d dup=%d%n", victim == 0 ? "coordinator" : "attached",
                        term ? "term" : "kill", clients, clients * calls, s.length == 0 ? 0 : s[s.length - 1],
                        percentile(s, 0.99),
                        r.lost(), r.duplicated());
            } finally {
                orb.shutdown(false);
            }
        }
    }

    private static double percentile(double[] sorted, double q) {
        if (sorted.length == 0) {
            return 0;
        }
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(q * sorted.length) - 1)];
    }
}
