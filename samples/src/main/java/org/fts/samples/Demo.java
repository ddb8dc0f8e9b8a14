package org.fts.samples;

import java.nio.file.Path;
import java.util.List;
import java.util.UUID;

import org.omg.CORBA.ORB;

/**
 * {@code bin/fts demo}: 3 replica processes on loopback (JGroups), a plain CORBA client against them, then
 * everything stopped.
 */
public final class Demo {
    private Demo() {
    }

    public static void main(String[] args) throws Exception {
        String group = "demo-" + UUID.randomUUID().toString().substring(0, 6);
        Path logs = Path.of(System.getProperty("fts.demo.logs", "target/demo-logs"));
        System.out.println("FTS demo: starting 3 replicas (separate JVMs, JGroups over 127.0.0.1) ...");
        long t0 = System.nanoTime();
        try (ReplicaCluster cluster = new ReplicaCluster(group, 3, false, List.of(), logs)) {
            System.out.printf("replicas up in %.1f s on ports %s (logs: %s)%n", (System.nanoTime() - t0) / 1e9,
                    cluster.ports(), logs.toAbsolutePath());
            ORB orb = ORB.init(new String[0], Clients.orbDefaults());
            try {
                PlainClient.run(orb, group, cluster.ports());
            } finally {
                orb.shutdown(false);
            }
            System.out.println("stopping the replicas ...");
        }
        System.out.println("FTS demo: done");
    }
}
