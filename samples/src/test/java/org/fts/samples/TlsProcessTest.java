package org.fts.samples;

import org.fts.testkit.ReplicaCluster;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import java.util.stream.IntStream;

import fts_samples.Counter;
import fts_samples.CounterHelper;
import org.fts.ft.Ior;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.omg.CORBA.ORB;
import org.omg.CORBA.SystemException;

/**
 * IIOP over TLS (docs/security.md): three TLS-only replica processes. Their group references carry each
 * replica's TLS port; a plaintext client is refused, whether it follows the reference or dials the TLS port;
 * FT clients over TLS go through a {@code kill -9} with exactly-once results.
 */
class TlsProcessTest {
    private static final int CLIENTS = 10;
    private static final int CALLS = 100;
    private ReplicaCluster cluster;
    private ORB tls;
    private ORB plain;

    @AfterEach
    void stop() {
        for (ORB o : new ORB[] {tls, plain}) {
            if (o != null) {
                o.shutdown(false);
            }
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void tlsOnlyReplicasRefusePlaintextAndFtClientsOverTlsSurviveAKill(@TempDir Path dir) throws Exception {
        String password = "tls-" + UUID.randomUUID();
        Path keystore = Tls.keystore(dir, password);
        cluster = ReplicaCluster.overTls("tls-" + UUID.randomUUID().toString().substring(0, 6), 3,
                Tls.asJvmOptions(Tls.server(keystore, password)), Path.of("target", "child-logs"));
        String iogr = cluster.reference("counter");
        Ior ior = Ior.parse(iogr);
        for (int i = 0; i < 3; i++) {
            Ior.Iiop body = Ior.Iiop.decode(ior.profiles().get(i).data());
            assertEquals(0, body.port(), "no plaintext port in a TLS-only replica's profile");
            assertEquals(cluster.ports().get(i).intValue(), body.sslPort(), "each profile has its replica's TLS port");
        }

        Properties p = Clients.orbDefaults();
        p.setProperty("jacorb.retries", "0");
        plain = ORB.init(new String[0], p);
        SystemException byReference = assertThrows(SystemException.class,
                () -> CounterHelper.narrow(plain.string_to_object(iogr)).increment());
        assertTrue(byReference instanceof org.omg.CORBA.TRANSIENT || byReference instanceof org.omg.CORBA.COMM_FAILURE,
                byReference.toString());
        SystemException byPort = assertThrows(SystemException.class, () -> CounterHelper.narrow(plain.string_to_object(
                Clients.corbaloc("127.0.0.1", cluster.ports().get(0), cluster.group(), "counter"))).increment());
        assertTrue(byPort instanceof org.omg.CORBA.TRANSIENT || byPort instanceof org.omg.CORBA.COMM_FAILURE,
                "plaintext GIOP to the TLS port is refused: " + byPort);

        Properties ft = Clients.ftDefaults();
        ft.putAll(Tls.client(keystore, password));
        tls = ORB.init(new String[0], ft);
        Counter counter = CounterHelper.narrow(tls.string_to_object(iogr));
        assertEquals(0, counter.value(), "the refused calls executed nowhere");
        FailoverWorkload.Result r = FailoverWorkload.run(tls, iogr, FailoverWorkload.homes(CLIENTS, 3, 1), CALLS,
                CLIENTS * CALLS / 4, progress -> cluster.kill(1), Duration.ofSeconds(120));
        assertTrue(r.errors().isEmpty(), () -> "clients failed: " + r.errors());
        assertEquals(0, r.lost());
        assertEquals(0, r.duplicated());
        assertEquals(IntStream.rangeClosed(1, CLIENTS * CALLS).boxed().toList(), r.sortedValues());
        assertTrue(r.faultNanos() > 0, "the kill happened mid-run");
        assertFalse(cluster.isAlive(1));
        assertEquals(CLIENTS * CALLS, counter.value());
    }
}
