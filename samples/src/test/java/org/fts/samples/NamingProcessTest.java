package org.fts.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;

import fts_samples.Counter;
import fts_samples.CounterHelper;
import org.fts.ft.FtConstants;
import org.fts.ft.FtGroupComponent;
import org.fts.ft.Ior;
import org.fts.goa.behaviour.InJvmReplicas;
import org.fts.process.ChildJvm;
import org.fts.process.Waits;
import org.fts.testkit.ReplicaCluster;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.omg.CORBA.ORB;
import org.omg.CosNaming.NamingContextExt;
import org.omg.CosNaming.NamingContextExtHelper;

/**
 * Object groups in a CosNaming service (JacORB's NameServer, as {@code bin/fts naming} starts it): serving
 * replicas bind them ({@code fts.naming.url}), a plain client resolves one by name and goes on after a
 * {@code kill -9} of a replica, and the binding follows the group reference when a replica joins.
 */
class NamingProcessTest {
    private ChildJvm nameServer;
    private ORB orb;
    private String url;

    @BeforeEach
    void startNameServer(@TempDir Path db) throws Exception {
        int port = org.fts.process.Ports.free("127.0.0.1");   // below the ephemeral range
        url = NameServers.url(port);
        Properties p = Clients.orbDefaults();   // a plain client: no FTS interceptor
        p.setProperty("jacorb.retries", "0");
        orb = ORB.init(new String[0], p);
        nameServer = NameServers.start(orb, port, db, Path.of("target", "child-logs"));
    }

    @AfterEach
    void stop() {
        if (orb != null) {
            orb.shutdown(false);
        }
        if (nameServer != null) {
            nameServer.close();
        }
    }

    private org.omg.CORBA.Object resolve(String name, Duration within) {
        AtomicReference<org.omg.CORBA.Object> found = new AtomicReference<>();
        Waits.await(() -> {
            try {
                NamingContextExt ns = NamingContextExtHelper.narrow(orb.string_to_object(url));
                found.set(ns.resolve_str(name));
                return true;
            } catch (org.omg.CosNaming.NamingContextPackage.NotFound e) {
                return false;
            } catch (org.omg.CORBA.UserException e) {
                throw new IllegalStateException(e);
            }
        }, within, () -> name + " is not bound");
        return found.get();
    }

    private static long version(org.omg.CORBA.Object ref, ORB orb) {
        Ior ior = Ior.parse(orb.object_to_string(ref));
        return FtGroupComponent.decode(ior.profiles().get(0).component(FtConstants.TAG_FT_GROUP)).refVersion();
    }

    @Test
    void aPlainClientResolvesAGroupByNameAndGoesOnAfterAReplicaIsKilled() throws Exception {
        String group = "ns-" + UUID.randomUUID().toString().substring(0, 6);
        try (ReplicaCluster cluster = new ReplicaCluster(group, 3, false, List.of("-Dfts.naming.url=" + url,
                "-Dfts.naming.context=bank/" + group), Path.of("target", "child-logs"))) {
            org.omg.CORBA.Object ref = resolve("bank/" + group + "/counter", Duration.ofSeconds(30));
            Ior ior = Ior.parse(orb.object_to_string(ref));
            assertEquals(3, ior.profiles().size(), "the name is bound to the object group reference");
            Counter counter = CounterHelper.narrow(ref);
            int last = 0;
            for (int i = 0; i < 10; i++) {
                last = counter.increment();
            }
            assertEquals(10, last);
            String first = ior.profiles().get(0).endpoint();
            cluster.kill(cluster.ports().indexOf(Integer.parseInt(first.substring(first.lastIndexOf(':') + 1))));

            int failures = 0;
            int after = 0;
            while (after == 0) {   // the call in flight on the dead connection may fail; the next one connects
                try {
                    after = counter.increment();
                } catch (org.omg.CORBA.COMM_FAILURE | org.omg.CORBA.TRANSIENT e) {
                    assertTrue(++failures <= 2, "the plain client does not reach a live replica: " + e);
                }
            }
            assertTrue(after > last, after + " after " + last);
            for (int i = 1; i <= 10; i++) {
                assertEquals(after + i, counter.increment());
            }
        }
    }

    @Test
    void theBindingFollowsTheGroupReferenceWhenAReplicaJoins() throws Exception {
        Properties naming = new Properties();
        naming.setProperty("fts.naming.url", url);
        naming.setProperty("fts.naming.context", "samples");
        try (InJvmReplicas r = new InJvmReplicas(3, naming,
                i -> List.of(new HelloObjImpl(), new CounterImpl(), new AccountImpl()))) {
            org.omg.CORBA.Object before = resolve("samples/counter", Duration.ofSeconds(30));
            long v = version(before, orb);
            assertEquals(3, Ior.parse(orb.object_to_string(before)).profiles().size());
            r.addReplica();   // not in fts.replicas: it announces its endpoint, and the group reference grows
            Waits.await(() -> version(resolve("samples/counter", Duration.ofSeconds(5)), orb) > v,
                    Duration.ofSeconds(30), () -> "the name still has the reference of version " + v);
            org.omg.CORBA.Object after = resolve("samples/counter", Duration.ofSeconds(5));
            assertEquals(4, Ior.parse(orb.object_to_string(after)).profiles().size());
            assertEquals(1, CounterHelper.narrow(after).increment());
        }
    }
}
