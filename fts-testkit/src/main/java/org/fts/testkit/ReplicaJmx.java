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

import javax.management.MBeanServerConnection;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

import org.fts.gc.LogFigures;
import org.fts.goa.intake.PlacementFigures;

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

    static {
        // A paused replica must not hold a reader's thread for ever: RMI's reads and connects time out.
        System.getProperties().putIfAbsent("sun.rmi.transport.tcp.responseTimeout", "15000");
        System.getProperties().putIfAbsent("sun.rmi.transport.connectionTimeout", "15000");
    }

    private final String replica;
    private final String group;
    private final JMXServiceURL url;
    private JMXConnector connector;
    private boolean closed;

    ReplicaJmx(String group, String replica, String host, int port) throws IOException {
        this.group = group;
        this.replica = replica;
        this.url = new JMXServiceURL("service:jmx:rmi:///jndi/rmi://" + host + ":" + port + "/jmxrmi");
    }

    /** Its declared-read counters, shown as {@code local=N ordered=M}. */
    String reads() throws IOException, InterruptedException {
        return within(() -> {
            java.util.Map<String, Object> v = attributes("Replica", "ReadsLocal", "ReadsOrdered");
            return "local=" + v.get("ReadsLocal") + " ordered=" + v.get("ReadsOrdered");
        });
    }

    /** Its load and placement, from the replica MXBean's attributes, read in one call (back to back). */
    PlacementFigures placement() throws IOException, InterruptedException {
        return within(() -> {
            java.util.Map<String, Object> v = attributes("Replica", "Placement", "Connections", "ConnectionsForwarded",
                    "PlacementInFlight", "CpuPermille", "PlacementServing", "FixedPermille", "ServingReplicas", "Board",
                    "ExtraWork");
            return new PlacementFigures((String) v.get("Placement"), (Integer) v.get("Connections"),
                    (Long) v.get("ConnectionsForwarded"), (Long) v.get("PlacementInFlight"),
                    (Long) v.get("CpuPermille"), (Boolean) v.get("PlacementServing"), (Long) v.get("FixedPermille"),
                    (Integer) v.get("ServingReplicas"), map(v.get("Board")), map(v.get("ExtraWork")));
        });
    }

    /** Its log figures, read in one call; null without a log. */
    LogFigures log() throws IOException, InterruptedException {
        return within(() -> {
            java.util.Map<String, Object> v = attributes("Replica", "LogSyncs", "LogRecordsPerSync",
                    "LogSyncP50Micros", "LogSyncP99Micros", "LogDiskBytes");
            long syncs = (Long) v.get("LogSyncs");
            return syncs < 0 ? null : new LogFigures(syncs, (Double) v.get("LogRecordsPerSync"),
                    (Long) v.get("LogSyncP50Micros"), (Long) v.get("LogSyncP99Micros"), (Long) v.get("LogDiskBytes"));
        });
    }

    /** The named attributes of this replica's MBean of {@code type}, in one call; fails if one is missing. */
    /**
     * Its intake budget at the listener on {@code port} (JacORB's listener with the GIOP guard): max, used, peak bytes,
     * and holds.
     */
    public long[] intake(int port) throws IOException, InterruptedException {
        return within(() -> {
            ObjectName on = new ObjectName("org.fts:type=Intake,group=" + ObjectName.quote(group) + ",member="
                    + ObjectName.quote(replica) + ",port=" + port);
            java.util.Map<String, Object> v = new java.util.HashMap<>();
            for (javax.management.Attribute a : connection().getAttributes(on,
                    new String[] {"MaxBytes", "UsedBytes", "PeakBytes", "Holds"}).asList()) {
                v.put(a.getName(), a.getValue());
            }
            return new long[] {(Long) v.get("MaxBytes"), (Long) v.get("UsedBytes"), (Long) v.get("PeakBytes"),
                (Long) v.get("Holds")};
        });
    }

    private java.util.Map<String, Object> attributes(String type, String... names) throws Exception {
        java.util.Map<String, Object> v = new java.util.HashMap<>();
        for (javax.management.Attribute a : connection().getAttributes(name(type), names).asList()) {
            v.put(a.getName(), a.getValue());
        }
        if (v.size() != names.length) {
            throw new IOException("replica " + replica + "'s " + type + " MBean answered " + v.keySet() + " of "
                    + java.util.Arrays.toString(names));
        }
        return v;
    }

    /** An MXBean's {@code Map<String, Long>} attribute as it travels (a table of key and value rows). */
    private static java.util.Map<String, Long> map(Object tabular) {
        java.util.Map<String, Long> out = new java.util.TreeMap<>();
        for (Object row : ((javax.management.openmbean.TabularData) tabular).values()) {
            javax.management.openmbean.CompositeData c = (javax.management.openmbean.CompositeData) row;
            out.put((String) c.get("key"), (Long) c.get("value"));
        }
        return out;
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
            java.util.Map<String, Object> raw = attributes("Batching", "BatchesSent", "MessagesSent",
                    "BatchingDelayCount", "BatchingDelaySumNanos", "CastLatencyCount", "CastLatencySumNanos");
            java.util.Map<String, Long> v = new java.util.HashMap<>();
            raw.forEach((k, x) -> v.put(k, ((Number) x).longValue()));
            return new BatchCounters(v.get("BatchesSent"), v.get("MessagesSent"), v.get("BatchingDelayCount"),
                    v.get("BatchingDelaySumNanos"), v.get("CastLatencyCount"), v.get("CastLatencySumNanos"));
        });
    }

    /** The connection, made on first use outside this object's lock (a slow connect blocks no one else). */
    private MBeanServerConnection connection() throws IOException {
        synchronized (this) {
            if (closed) {
                throw new IOException("replica " + replica + "'s process is gone (its JMX reader is closed)");
            }
            if (connector != null) {
                return connector.getMBeanServerConnection();
            }
        }
        JMXConnector made = JMXConnectorFactory.connect(url);
        synchronized (this) {
            if (closed || connector != null) {   // closed meanwhile, or another reader connected first
                JMXConnector keep = closed ? null : connector;
                try {
                    made.close();
                } catch (IOException ignored) {
                    // nothing to keep
                }
                if (keep == null) {
                    throw new IOException("replica " + replica + "'s process is gone (its JMX reader is closed)");
                }
                return keep.getMBeanServerConnection();
            }
            connector = made;
            return made.getMBeanServerConnection();
        }
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
        closed = true;
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
