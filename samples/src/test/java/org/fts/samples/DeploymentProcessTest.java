package org.fts.samples;

import org.fts.testkit.ReplicaCluster;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.OptionalInt;
import java.util.Properties;
import java.util.UUID;

import fts_samples.Counter;
import fts_samples.CounterHelper;
import org.fts.ft.Ior;
import org.fts.process.Waits;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.omg.CORBA.ORB;
import org.omg.CORBA.SystemException;

/**
 * Replicas as a CORBA installation runs them (docs/deployment.md): separate JVMs on JGroups, got through
 * {@code resolve_initial_references("GroupPOA")}, run as services (stdin at end-of-file, stopped by SIGTERM), and
 * reached by ORBs that read only the first IIOP profile of a reference (omniORB, TAO) through its
 * {@code TAG_ALTERNATE_IIOP_ADDRESS} components.
 */
class DeploymentProcessTest {
    private ReplicaCluster cluster;
    private ORB orb;

    private void start(List<String> jvmArgs, List<String> args) throws Exception {
        cluster = new ReplicaCluster("dep-" + UUID.randomUUID().toString().substring(0, 6), 3, false, jvmArgs, args,
                Path.of("target", "child-logs"));
        orb = ORB.init(new String[0], clientProperties());
    }

    /** A plain client: no FTS interceptor, no retries of its own. */
    private static Properties clientProperties() {
        Properties p = Clients.orbDefaults();
        p.setProperty("jacorb.retries", "0");
        p.setProperty("jacorb.connection.client.connect_timeout", "2000");
        return p;
    }

    @AfterEach
    void stop() {
        if (orb != null) {
            orb.shutdown(false);
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    private List<String> view(int i) {
        try {
            return cluster.view(i).stream().sorted().toList();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private int replicaAt(String endpoint) {
        return cluster.ports().indexOf(Integer.parseInt(endpoint.substring(endpoint.lastIndexOf(':') + 1)));
    }

    @Test
    void aClientThatReadsOnlyTheFirstProfileReachesALiveReplicaWhenThatProfilesReplicaIsDown() throws Exception {
        start(List.of(), List.of());
        Ior iogr = Ior.parse(cluster.reference("counter"));
        Ior.Profile first = iogr.profiles().get(0);
        Ior.Iiop body = Ior.Iiop.decode(first.data());
        int down = replicaAt(first.endpoint());
        assertEquals(3, iogr.profiles().size());
        assertEquals(2, body.alternateAddresses().size(), "the first profile names the other two replicas");
        Counter onlyFirst = CounterHelper.narrow(orb.string_to_object(iogr.withOnly(first)));
        Counter noAlternates = CounterHelper.narrow(orb.string_to_object(
                iogr.withOnly(body.without(Ior.TAG_ALTERNATE_IIOP_ADDRESS).profile())));
        assertEquals(1, onlyFirst.increment());
        assertEquals(2, noAlternates.increment());

        cluster.kill(down);   // kill -9 of the replica in the first profile

        // without alternates a first-profile-only ORB is stuck; with them it connects to a live replica
        SystemException e = assertThrows(SystemException.class, noAlternates::increment);
        assertTrue(e instanceof org.omg.CORBA.TRANSIENT || e instanceof org.omg.CORBA.COMM_FAILURE, e.toString());
        // A client ORB that starts now (this one's connection to the dead replica may still be torn down by its reader
        // thread while it reconnects through the alternates: a JacORB client race, not what this test checks; seen once
        // in CI as COMM_FAILURE on the call below).
        ORB later = ORB.init(new String[0], clientProperties());
        try {
            Counter fresh = CounterHelper.narrow(later.string_to_object(iogr.withOnly(first)));
            int value = fresh.increment();
            assertTrue(value == 3 || value == 4, "the group's count went on: " + value);   // 4 if the refused call ran
        } finally {
            later.shutdown(false);
        }
    }

    @Test
    void replicasRunWithStdinAtEndOfFileAndServe() throws Exception {
        start(List.of(), List.of(ReplicaCluster.AS_SERVICES));
        Counter counter = CounterHelper.narrow(orb.string_to_object(cluster.reference("counter")));
        for (int i = 1; i <= 20; i++) {
            assertEquals(i, counter.increment());
        }
        for (int i = 0; i < 3; i++) {
            assertTrue(cluster.isAlive(i), "r" + i + " ended at the end of its stdin");
        }
    }

    /**
     * SIGTERM leaves the group: with failure detection slowed to a minute (no FD_SOCK2, FD_ALL3 60 s), the
     * survivors' view drops the stopped replica long before any detector could, so it left; it exits by itself.
     */
    @Test
    void sigtermLeavesTheGroupWithoutFailureDetection(@TempDir Path dir) throws Exception {
        Path stack = dir.resolve("slow-fd.xml");
        String xml;
        try (InputStream in = getClass().getClassLoader().getResourceAsStream("fts-jgroups-udp.xml")) {
            xml = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        String slow = xml.replaceAll("<FD_SOCK2[^>]*/>", "").replaceAll("<FD_ALL3[^>]*/>",
                "<FD_ALL3 timeout=\"60s\" interval=\"1s\"/>");
        assertTrue(!slow.contains("<FD_SOCK2") && slow.contains("timeout=\"60s\""), "the stack was slowed");
        Files.writeString(stack, slow);
        start(List.of("-Dfts.jgroups.stack=" + stack), List.of());
        Counter counter = CounterHelper.narrow(orb.string_to_object(cluster.reference("counter")));
        assertEquals(1, counter.increment());
        assertEquals(List.of("r0", "r1", "r2"), view(0));

        cluster.terminate(1);

        OptionalInt status = cluster.awaitExit(1, Duration.ofSeconds(20));
        assertTrue(status.isPresent(), "r1 did not exit after SIGTERM");
        assertEquals(143, status.getAsInt(), "the JVM's status after SIGTERM (128 + 15)");
        Waits.await(() -> view(0).equals(List.of("r0", "r2")) && view(2).equals(List.of("r0", "r2")),
                Duration.ofSeconds(20), () -> "the survivors still have r1 in their view");
        assertTrue(Files.readString(Path.of("target", "child-logs", cluster.group() + "-r1.err"))
                .contains("leaves group " + cluster.group()), "r1 logged its leave");
        assertEquals(2, counter.increment(), "the group serves on");
    }

    /**
     * The multi-host recipe of docs/deployment.md, with 127.0.0.2-4 standing in for three hosts: each replica
     * binds IIOP and JGroups (tcp stack, TCPPING over every host) to its own address; an FT client goes on
     * through a crash of one of them.
     */
    @Test
    void replicasOnThreeHostsFormOneGroupOverTcpAndAClientSurvivesACrash() throws Exception {
        List<String> hosts = List.of("127.0.0.2", "127.0.0.3", "127.0.0.4");
        cluster = ReplicaCluster.onHosts("hosts-" + UUID.randomUUID().toString().substring(0, 6), hosts, List.of(),
                Path.of("target", "child-logs"));
        orb = ORB.init(new String[0], Clients.ftDefaults());
        Ior iogr = Ior.parse(cluster.reference("counter"));
        assertEquals(hosts, iogr.profiles().stream().map(p -> p.endpoint().split(":")[0]).toList());
        assertEquals(List.of("r0", "r1", "r2"), view(0));
        Counter counter = CounterHelper.narrow(orb.string_to_object(cluster.reference("counter")));
        for (int i = 1; i <= 20; i++) {
            assertEquals(i, counter.increment());
        }
        cluster.kill(1);
        for (int i = 21; i <= 40; i++) {
            assertEquals(i, counter.increment());
        }
        Waits.await(() -> view(0).equals(List.of("r0", "r2")), Duration.ofSeconds(30),
                () -> "r0's view still holds r1: " + view(0));
    }
}
