package org.fts.testkit;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import javax.management.JMX;
import javax.management.MBeanServerConnection;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

import org.fts.gc.LogFigures;
import org.fts.goa.intake.PlacementFigures;
import org.fts.goa.ReplicaMXBean;

/**
 * One replica process's figures, read over JMX (its platform MBean server, reached on the loopback port the cluster
 * gave it): typed attributes, never a line printed and parsed back. Every call is bounded (a paused replica answers
 * nothing) and fails with an {@link IOException} naming the replica.
 */
final class ReplicaJmx implements AutoCloseable {
    private static final Duration WAIT = Duration.ofSeconds(15);
    private static final ExecutorService CALLS = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "replica-jmx");
        t.setDaemon(true);
        return t;
    });

    /** The JVM options that open a replica's JMX agent on {@code host:port}, without authentication (loopback only). */
    static java.util.List<String> agentOptions(String host, int port) {
        return java.util.List.of("-Dcom.sun.management.jmxremote.port=" + port,
                "-Dcom.sun.management.jmxremote.rmi.port=" + port, "-Dcom.sun.management.jmxremote.host=" + host,
                "-Djava.rmi.server.hostname=" + host, "-Dcom.sun.management.jmxremote.authenticate=false",
                "-Dcom.sun.management.jmxremote.ssl=false");
    }

    private final String replica;
    private final String group;
    private final JMXServiceURL url;
    private JMXConnector connector;

    ReplicaJmx(String group, String replica, String host, int port) throws IOException {
        this.group = group;
        this.replica = replica;
        this.url = new JMXServiceURL("service:jmx:rmi:///jndi/rmi://" + host + ":" + port + "/jmxrmi");
    }

    /** Its declared-read counters, shown as {@code local=N ordered=M}. */
    String reads() throws IOException, InterruptedException {
        return within(() -> {
            ReplicaMXBean r = JMX.newMXBeanProxy(connection(), name("Replica"), ReplicaMXBean.class);
            return "local=" + r.getReadsLocal() + " ordered=" + r.getReadsOrdered();
        });
    }

    /** Its load and placement, from the replica MXBean's attributes. */
    PlacementFigures placement() throws IOException, InterruptedException {
        return within(() -> {
            ReplicaMXBean r = JMX.newMXBeanProxy(connection(), name("Replica"), ReplicaMXBean.class);
            return new PlacementFigures(r.getPlacement(), r.getConnections(), r.getConnectionsForwarded(),
                    r.getPlacementInFlight(), r.getCpuPermille(), r.isPlacementServing(), r.getFixedPermille(),
                    r.getServingReplicas(), r.getBoard(), r.getExtraWork());
        });
    }

    /** Its log figures; null without a log. */
    LogFigures log() throws IOException, InterruptedException {
        return within(() -> {
            ReplicaMXBean r = JMX.newMXBeanProxy(connection(), name("Replica"), ReplicaMXBean.class);
            long syncs = r.getLogSyncs();
            return syncs < 0 ? null : new LogFigures(syncs, r.getLogRecordsPerSync(), r.getLogSyncP50Micros(),
                    r.getLogSyncP99Micros(), r.getLogDiskBytes());
        });
    }

    /**
     * Its cumulative batching counters; zeros for a server with no adaptor (the plain baseline). Read in one call, so
     * that the replica reads them back to back (a window's difference of batches and messages stays consistent).
     */
    BatchCounters batching() throws IOException, InterruptedException {
        return within(() -> {
            MBeanServerConnection c = connection();
            ObjectName n = name("Batching");
            if (!c.isRegistered(n)) {
                return BatchCounters.ZERO;
            }
            String[] names = {"BatchesSent", "MessagesSent", "BatchingDelayCount", "BatchingDelaySumNanos",
                    "CastLatencyCount", "CastLatencySumNanos"};
            java.util.Map<String, Long> v = new java.util.HashMap<>();
            for (javax.management.Attribute a : c.getAttributes(n, names).asList()) {
                v.put(a.getName(), ((Number) a.getValue()).longValue());
            }
            if (v.size() != names.length) {
                throw new IOException("replica " + replica + "'s batching MBean answered " + v.keySet() + " of "
                        + java.util.Arrays.toString(names));
            }
            return new BatchCounters(v.get("BatchesSent"), v.get("MessagesSent"), v.get("BatchingDelayCount"),
                    v.get("BatchingDelaySumNanos"), v.get("CastLatencyCount"), v.get("CastLatencySumNanos"));
        });
    }

    private synchronized MBeanServerConnection connection() throws IOException {
        if (connector == null) {
            connector = JMXConnectorFactory.connect(url);
        }
        return connector.getMBeanServerConnection();
    }

    private ObjectName name(String type) throws MalformedObjectNameException {
        return new ObjectName("org.fts:type=" + type + ",group=" + ObjectName.quote(group) + ",member="
                + ObjectName.quote(replica));
    }

    private <T> T within(Callable<T> call) throws IOException, InterruptedException {
        Future<T> f = CALLS.submit(call);
        try {
            return f.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new IOException("replica " + replica + " did not answer over JMX (" + url + ") within "
                    + WAIT.toSeconds() + " s");
        } catch (ExecutionException e) {
            throw new IOException("replica " + replica + " over JMX (" + url + "): " + e.getCause(), e.getCause());
        } finally {
            f.cancel(true);   // done already, or abandoned: an interrupted caller leaves no call behind
        }
    }

    @Override
    public synchronized void close() {
        if (connector != null) {
            try {
                connector.close();
            } catch (IOException e) {
                // the replica is gone: nothing to close
            }
            connector = null;
        }
    }
}
