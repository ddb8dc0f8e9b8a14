package org.fts.loadtest.demo;

import org.fts.samples.Clients;
import org.fts.samples.FailoverWorkload;
import org.fts.samples.NameServers;
import org.fts.samples.PlainClient;
import org.fts.testkit.ReplicaCluster;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;

import org.omg.CORBA.ORB;

/**
 * {@code bin/fts demo}: 3 replica processes on loopback (JGroups), a plain CORBA client against them, also
 * through the object groups the replicas bound in a CosNaming service (JacORB's NameServer); then
 * FT clients (the FTS interceptor, properties only) while one replica is killed with SIGKILL; then
 * everything stopped.
 */
public final class Demo {
    private Demo() {
    }

    public static void main(String[] args) throws Exception {
        String group = "demo-" + UUID.randomUUID().toString().substring(0, 6);
        Path logs = Path.of(System.getProperty("samples.demo.logs", "target/demo-logs"));
        if (args.length > 0 && args[0].equals("--secure")) {
            SecureDemo.run(logs);
            System.out.println("FTS secure demo: done");
            return;
        }
        System.out.println("FTS demo: starting 3 replicas (separate JVMs, JGroups over 127.0.0.1) ...");
        long t0 = System.nanoTime();
        ORB orb = ORB.init(new String[0], Clients.orbDefaults());
        int nsPort = org.fts.process.Ports.free("127.0.0.1");   // below the ephemeral range: nothing takes it meanwhile
        try (org.fts.process.ChildJvm ns = NameServers.start(orb, nsPort, logs.resolve("naming-db"), logs);
             ReplicaCluster cluster = new ReplicaCluster(group, 3, false, List.of("-Dfts.naming.url="
                     + NameServers.url(nsPort), "-Dfts.naming.context=demo"), logs)) {
            System.out.printf("replicas up in %.1f s on ports %s (logs: %s)%n", (System.nanoTime() - t0) / 1e9,
                    cluster.ports(), logs.toAbsolutePath());
            try {
                PlainClient.run(orb, group, cluster.ports());
                PlainClient.byName(orb, NameServers.url(nsPort), "demo/counter");
            } finally {
                orb.shutdown(false);
            }
            failover(cluster);
            System.out.println("stopping the replicas ...");
        }
        System.out.println("FTS demo: done");
    }

    /** 10 FT clients x 100 increment(); the replica 6 of them use is killed with SIGKILL a quarter in. */
    private static void failover(ReplicaCluster cluster) throws Exception {
        ORB orb = ORB.init(new String[0], Clients.ftDefaults());
        try {
            int base = fts_samples.CounterHelper.narrow(orb.string_to_object(cluster.reference("counter"))).value();
            System.out.println("failover: 10 FT clients x 100 increment() through the counter's group reference;"
                    + " replica 1 gets kill -9 a quarter of the way in ...");
            FailoverWorkload.Result r = FailoverWorkload.run(orb, cluster.reference("counter"),
                    FailoverWorkload.homes(10, 3, 1), 100, 250, progress -> cluster.kill(1),
                    java.time.Duration.ofSeconds(120));
            List<Double> spanning = r.spanning();
            boolean exact = r.errors().isEmpty() && r.sortedValues().equals(
                    java.util.stream.IntStream.rangeClosed(base + 1, base + 1000).boxed().toList());
            System.out.printf("failover: %d calls, %d errors; values %s; calls in flight at the kill took at most"
                            + " %.0f ms%n", r.calls().size(), r.errors().size(),
                    exact ? (base + 1) + ".." + (base + 1000) + ", each exactly once" : "NOT exactly once",
                    spanning.isEmpty() ? 0 : spanning.get(spanning.size() - 1));
            for (int i : new int[] {0, 2}) {
                System.out.println("counter.value() at replica " + i + " -> " + fts_samples.CounterHelper.narrow(
                        orb.string_to_object(Clients.corbaloc("127.0.0.1", cluster.ports().get(i), cluster.group(),
                                "counter"))).value());
            }
            if (!exact) {
                throw new IllegalStateException("failover demo: " + r.errors());
            }
            System.out.println("restart: replica 1 starts again and fetches the group's state at a cut of the order ...");
            long t0 = System.nanoTime();
            cluster.restart(1, List.of());
            System.out.printf("restart: replica 1 serves after %.1f s; counter.value() at replica 1 -> %d%n",
                    (System.nanoTime() - t0) / 1e9, fts_samples.CounterHelper.narrow(orb.string_to_object(
                            Clients.corbaloc("127.0.0.1", cluster.ports().get(1), cluster.group(), "counter"))).value());
            // Each replica answers at its own position of the order: one still executing the last call differs
            // for a moment, so the digests are asked again (a few times) until they agree.
            List<String> digests = new java.util.ArrayList<>();
            boolean same = false;
            for (int attempt = 0; attempt < 10 && !same; attempt++) {
                digests.clear();
                for (int i = 0; i < 3; i++) {
                    digests.add(cluster.digest(i));
                }
                same = new java.util.HashSet<>(digests).size() == 1;
            }
            System.out.println("state digests (objects, reply cache, group reference): " + (same
                    ? "identical at the 3 replicas (" + digests.get(0).substring(0, 16) + "...)" : digests));
        } finally {
            orb.shutdown(false);
        }
    }
}
