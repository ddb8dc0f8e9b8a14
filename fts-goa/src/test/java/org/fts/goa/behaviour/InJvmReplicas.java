package org.fts.goa.behaviour;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import java.util.function.IntFunction;

import org.fts.goa.GroupPOA;
import org.omg.CORBA.ORB;
import org.omg.PortableServer.Servant;

/**
 * N replicas in this JVM: one JacORB ORB and one {@link GroupPOA} each, on a private in-JVM group network
 * ({@code fts.gc=local}), each listening on its own loopback port; and client references that go to one chosen
 * replica. Group {@link #GROUP}, objects {@link #IDS}; the servants are this package's (module
 * {@code fts_goa_test}) unless the caller gives its own.
 */
public final class InJvmReplicas implements AutoCloseable {
    public static final String GROUP = "goa";
    public static final String[] IDS = {"hello", "counter", "account"};

    final List<ORB> orbs = new ArrayList<>();
    final List<GroupPOA> goas = new ArrayList<>();
    final List<List<Servant>> servants = new ArrayList<>();
    final List<Integer> ports = new ArrayList<>();
    /** The adaptor's own listener's port per replica when {@link #FRONT_END} is among the properties; else empty. */
    final List<Integer> iiopPorts = new ArrayList<>();
    final ORB client;
    /**
     * As a system property: {@code off} has the replicas serve the group through JacORB's listener (the suite's
     * second surefire run); otherwise each serves it on the adaptor's own (fts.iiop.port), as the shipped runner does.
     * Among the extra properties: {@code on} or {@code off} for these replicas, whatever the system property says.
     */
    public static final String FRONT_END = "fts.test.front_end";
    private final boolean frontEnd;

    public InJvmReplicas(int n) throws Exception {
        this(n, new Properties());
    }

    private final String network = "test-" + UUID.randomUUID();
    private final List<String> endpoints;
    private final Properties extra;
    private final IntFunction<List<Servant>> servantsOf;
    private final java.util.Set<Integer> stopped = new java.util.HashSet<>();

    /** {@code extra}: more fts.* properties for every replica (e.g. the batching policy). */
    public InJvmReplicas(int n, Properties extra) throws Exception {
        this(n, extra, i -> List.of(new HelloObjImpl(), new CounterImpl(), new AccountImpl()));
    }

    /** {@code servantsOf}: replica i's servants for {@link #IDS} (also for replicas added or restarted later). */
    public InJvmReplicas(int n, Properties extra, IntFunction<List<Servant>> servantsOf) throws Exception {
        this.extra = extra;
        this.servantsOf = servantsOf;
        this.frontEnd = !"off".equals(extra.getProperty(FRONT_END, System.getProperty(FRONT_END, "on")));
        for (int i = 0; i < n; i++) {
            ports.add(freePort());
            if (frontEnd) {
                iiopPorts.add(freePort());
            }
        }
        endpoints = (iiopPorts.isEmpty() ? ports : iiopPorts).stream().map(p -> "127.0.0.1:" + p).toList();
        for (int i = 0; i < n; i++) {
            startReplica(i, servantsOf.apply(i));
        }
        client = ORB.init(new String[0], orbProps());
        for (GroupPOA g : goas) {   // the first replicas return from activate() before a majority formed
            if (!g.awaitServing(java.time.Duration.ofSeconds(30))) {
                close();
                throw new IllegalStateException("a replica does not serve after 30 s: it " + g.notServing());
            }
        }
    }

    /**
     * Starts one more replica, configured with the original {@code fts.replicas} (which does not name it), so
     * it announces its endpoint to the group. Returns its index.
     */
    public int addReplica() throws Exception {
        ports.add(freePort());
        if (frontEnd) {
            iiopPorts.add(freePort());
        }
        startReplica(ports.size() - 1);
        return ports.size() - 1;
    }

    /** A free port for one more replica (then {@link #startReplica(int, List, Properties)} with its index). */
    int reservePort() throws IOException {
        ports.add(freePort());
        if (frontEnd) {
            iiopPorts.add(freePort());
        }
        return ports.size() - 1;
    }

    void startReplica(int i) throws Exception {
        startReplica(i, servantsOf.apply(i));
    }

    /**
     * Starts replica {@code i} with these servants for {@link #IDS} (plus {@code more} properties); on failure
     * its ORB and adaptor are closed and the failure is rethrown.
     */
    void startReplica(int i, List<Servant> mine, Properties more) throws Exception {
        awaitFree(ports.get(i));   // restarted right after stop(i): its old ORB may still hold the port a moment
        if (!iiopPorts.isEmpty()) {
            awaitFree(iiopPorts.get(i));
        }
        Properties p = orbProps();
        p.setProperty("OAIAddr", "127.0.0.1");
        p.setProperty("OAPort", Integer.toString(ports.get(i)));
        p.setProperty("jacorb.implname", "fts-test");
        p.setProperty("fts.gc", "local");
        p.setProperty("fts.gc.local.network", network);
        p.setProperty("fts.group", GROUP);
        p.setProperty("fts.replica.id", "r" + i);
        p.setProperty("fts.replicas", String.join(",", endpoints));
        p.putAll(org.fts.goa.giop.GiopGuard.orbProperties());   // as the shipped runner
        // Tests here address one replica on purpose (raw connections, corbaloc), and the replicas share one JVM, whose
        // CPU no placement can split: connections stay where they are opened (PlacementProcessTest places them).
        p.setProperty("fts.placement", "first");
        p.putAll(extra);
        p.remove(FRONT_END);
        if (!iiopPorts.isEmpty()) {
            p.setProperty("fts.iiop.port", Integer.toString(iiopPorts.get(i)));
        }
        p.putAll(more);
        ORB orb = ORB.init(new String[0], p);
        GroupPOA goa = null;
        try {
            goa = GroupPOA.create(orb, p);
            for (int k = 0; k < mine.size(); k++) {
                goa.activate_object_with_id(IDS[k].getBytes(StandardCharsets.UTF_8), mine.get(k));
            }
            goa.the_POAManager().activate();
        } catch (Exception | Error e) {
            if (goa != null) {
                goa.destroy(false, false);
            }
            orb.shutdown(false);
            throw e;
        }
        orbs.add(orb);
        goas.add(goa);
        servants.add(mine);
    }

    void startReplica(int i, List<Servant> mine) throws Exception {
        startReplica(i, mine, new Properties());
    }

    /** The in-JVM network the replicas' group runs on (for partitions). */
    org.fts.gc.local.LocalNetwork network() {
        return org.fts.gc.local.LocalNetwork.named(network);
    }

    /** The group channel replica {@code i} joined with (the test kit's record of the channels made here). */
    org.fts.gc.GroupChannel channel(int i) {
        return org.fts.gc.OpenChannels.of(GROUP, "r" + i);
    }

    /** Replica {@code i}'s member in the group. */
    org.fts.gc.MemberId member(int i) {
        return channel(i).self();
    }

    /** Stops replica {@code i} (its ORB closes its connections; it leaves the group). */
    void stop(int i) {
        if (!stopped.add(i)) {
            return;
        }
        try {
            goas.get(i).destroy(false, false);
        } finally {
            orbs.get(i).shutdown(false);
        }
    }

    static Properties orbProps() {
        Properties p = Clients.orbDefaults();
        // Real sockets even though client and replicas share this JVM (JacORB would short-circuit them).
        p.setProperty("jacorb.iiop.enable_loopback", "off");
        return p;
    }

    /**
     * Waits (bounded) until {@code port} can be bound on 127.0.0.1: {@link #stop} shuts the ORB down without
     * waiting for it, and a replica restarted at once found its old listener still open (MetricsInJvmTest in CI).
     */
    private static void awaitFree(int port) {
        org.fts.process.Waits.await(() -> {
            try (java.net.ServerSocket s = new java.net.ServerSocket()) {
                s.setReuseAddress(true);
                s.bind(new java.net.InetSocketAddress("127.0.0.1", port));
                return true;
            } catch (IOException taken) {
                return false;
            }
        }, java.time.Duration.ofSeconds(20), () -> "port " + port + " is still taken after a replica's stop");
    }

    /** Below the ephemeral range: a port 0 hands out can be taken by an outgoing connection before the bind. */
    private static int freePort() throws IOException {
        return org.fts.process.Ports.free("127.0.0.1");
    }

    /** A reference to object {@code id} through replica {@code i} only (GIOP 1.2). */
    org.omg.CORBA.Object at(int i, String id) {
        return client.string_to_object("corbaloc::1.2@127.0.0.1:" + port(i) + "/fts-test/FTS-goa/" + id);
    }

    /** The port replica {@code i} serves the group's objects on. */
    int port(int i) {
        return iiopPorts.isEmpty() ? ports.get(i) : iiopPorts.get(i);
    }

    @Override
    public void close() {
        client.shutdown(false);
        for (int i = goas.size() - 1; i >= 0; i--) {
            stop(i);
        }
    }
}
