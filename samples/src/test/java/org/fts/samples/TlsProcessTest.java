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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;
import org.omg.CORBA.ORB;
import org.omg.CORBA.SystemException;

/**
 * IIOP over TLS (docs/security.md): three TLS-only replica processes, on the adaptor's own listener (the runner's
 * default: TLS with JacORB's server keys) and on JacORB's. Their group references carry each replica's TLS port; a
 * plaintext client is refused, whether it follows the reference or dials the TLS port; on the adaptor's listener a
 * TLS peer announcing an oversized GIOP message is cut off by the frame guard; FT clients over TLS go through a
 * {@code kill -9} with exactly-once results.
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

    @ParameterizedTest
    @ValueSource(strings = {"goa", "jacorb"})
    void tlsOnlyReplicasRefusePlaintextAndFtClientsOverTlsSurviveAKill(String listener, @TempDir Path dir)
            throws Exception {
        String password = "tls-" + UUID.randomUUID();
        Path keystore = Tls.keystore(dir, password);
        List<String> options = new java.util.ArrayList<>(Tls.asJvmOptions(Tls.server(keystore, password)));
        options.add("-Dfts.replica.listener=" + listener);
        cluster = ReplicaCluster.overTls("tls-" + UUID.randomUUID().toString().substring(0, 6), 3, options,
                Path.of("target", "child-logs"));
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

        if (listener.equals("goa")) {
            assertTrue(oversizedMessageOverTlsIsCutOff(keystore, password, cluster.ports().get(0)),
                    "a TLS peer announcing a message over fts.giop.max_message_size is disconnected");
            assertTrue(cluster.isAlive(0), "and the replica lives on");
        }

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

    /**
     * Over TLS, a GIOP 1.2 Request header announcing 2 GiB: whether the replica closed the connection (the frame
     * guard answers on the header's last byte, before any body is sent or allocated).
     */
    private static boolean oversizedMessageOverTlsIsCutOff(Path keystore, String password, int port) throws Exception {
        java.security.KeyStore trust = java.security.KeyStore.getInstance("JKS");
        try (java.io.InputStream in = java.nio.file.Files.newInputStream(keystore)) {
            trust.load(in, password.toCharArray());
        }
        javax.net.ssl.TrustManagerFactory tmf = javax.net.ssl.TrustManagerFactory.getInstance(
                javax.net.ssl.TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        javax.net.ssl.SSLContext ssl = javax.net.ssl.SSLContext.getInstance("TLS");
        ssl.init(null, tmf.getTrustManagers(), null);
        try (javax.net.ssl.SSLSocket s = (javax.net.ssl.SSLSocket) ssl.getSocketFactory().createSocket("127.0.0.1",
                port)) {
            s.setSoTimeout(20_000);
            s.startHandshake();
            byte[] header = {'G', 'I', 'O', 'P', 1, 2, 0, 0, 0x7f, (byte) 0xff, (byte) 0xff, 0};
            s.getOutputStream().write(header);
            s.getOutputStream().flush();
            try {
                return s.getInputStream().read() < 0;   // closed without a byte sent back
            } catch (java.net.SocketTimeoutException e) {
                return false;   // still open 20 s on
            } catch (java.io.IOException e) {
                return true;   // or reset
            }
        }
    }
}
