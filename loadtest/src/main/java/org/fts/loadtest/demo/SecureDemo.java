package org.fts.loadtest.demo;

import org.fts.samples.Clients;
import org.fts.samples.Tls;
import org.fts.testkit.ReplicaCluster;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.UUID;

import fts_samples.Counter;
import fts_samples.CounterHelper;
import org.fts.gc.GroupChannel;
import org.fts.gc.GroupChannels;
import org.fts.gc.GroupListener;
import org.fts.gc.MemberId;
import org.fts.gc.View;
import org.fts.jgroups.GroupSecurity;
import org.omg.CORBA.ORB;

/**
 * {@code bin/fts demo --secure}: 3 TLS-only replicas whose group traffic is encrypted with a key made for the
 * demo (docs/security.md), an FT client over TLS, a plaintext client that is refused, and a rogue process with
 * the group's name but not its key, which is refused too: it stays alone, and what it broadcasts executes
 * nowhere.
 */
final class SecureDemo {
    private SecureDemo() {
    }

    static void run(Path logs) throws Exception {
        Path keys = logs.resolve("keys");
        char[] password = ("demo-" + UUID.randomUUID()).toCharArray();
        GroupSecurity.createKeystore(keys.resolve("group.p12"), password, "fts");
        Files.writeString(keys.resolve("group.pw"), new String(password) + "\n");
        List<String> opts = new ArrayList<>(List.of("-Dfts.jgroups.encrypt=sym",
                "-Dfts.jgroups.keystore=" + keys.resolve("group.p12").toAbsolutePath(),
                "-Dfts.jgroups.keystore_password_file=" + keys.resolve("group.pw").toAbsolutePath()));
        String tlsPassword = "demo-" + UUID.randomUUID();
        Path tlsStore = Tls.keystore(keys, tlsPassword);
        opts.addAll(Tls.asJvmOptions(Tls.server(tlsStore, tlsPassword)));
        String group = "secure-demo-" + UUID.randomUUID().toString().substring(0, 6);
        System.out.println("secure demo: a group key (AES-256) and a TLS key pair (RSA-2048, self-signed) in "
                + keys.toAbsolutePath() + "; starting 3 TLS-only replicas with encrypted group traffic ...");
        java.util.Properties ftTls = Clients.ftDefaults();
        ftTls.putAll(Tls.client(tlsStore, tlsPassword));
        ORB orb = ORB.init(new String[0], ftTls);
        ORB plain = ORB.init(new String[0], Clients.orbDefaults());
        try (ReplicaCluster cluster = ReplicaCluster.overTls(group, 3, opts, logs)) {
            Counter counter = CounterHelper.narrow(orb.string_to_object(cluster.reference("counter")));
            for (int i = 0; i < 10; i++) {
                counter.increment();
            }
            System.out.println("FT client over TLS: 10 increments -> " + counter.value());
            try {
                CounterHelper.narrow(plain.string_to_object(cluster.reference("counter"))).increment();
                throw new IllegalStateException("a plaintext client was served by TLS-only replicas");
            } catch (org.omg.CORBA.TRANSIENT | org.omg.CORBA.COMM_FAILURE e) {
                System.out.println("plaintext client: refused (" + e.getClass().getSimpleName() + ")");
            }
            rogue(group, cluster.multicastPort());
            for (int i = 0; i < 10; i++) {
                counter.increment();
            }
            List<String> digests = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                digests.add(cluster.digest(i));
            }
            System.out.printf("after the rogue: counter.value() -> %d; views %s; state digests %s%n", counter.value(),
                    List.of(cluster.view(0), cluster.view(1), cluster.view(2)),
                    new HashSet<>(digests).size() == 1 ? "equal" : "DIFFER " + digests);
            if (counter.value() != 20 || new HashSet<>(digests).size() != 1) {
                throw new IllegalStateException("the rogue changed the group's state");
            }
        } finally {
            orb.shutdown(false);
            plain.shutdown(false);
        }
    }

    /**
     * A process with the group's name and multicast port and no key: it tries to join, then broadcasts 10 forged
     * messages.
     */
    private static void rogue(String group, int multicastPort) {
        Properties p = new Properties();
        p.setProperty("fts.gc", "jgroups");
        p.setProperty("fts.jgroups.encrypt", "none");
        p.setProperty("fts.jgroups.mcast_port", Integer.toString(multicastPort));   // where the group is
        p.setProperty("fts.group.size", "0");
        System.out.println("rogue: joining group " + group + " without the key ...");
        try (GroupChannel r = GroupChannels.create(p, "rogue#1")) {
            r.join(group, new GroupListener() {
                @Override
                public void deliver(MemberId sender, byte[] payload) {
                    // its own forged broadcasts, ordered in its own one-member group
                }

                @Override
                public void viewAccepted(View view) {
                    // only ever itself
                }
            });
            for (int i = 0; i < 10; i++) {
                r.abcast(("forged " + i).getBytes(StandardCharsets.UTF_8));
            }
            System.out.println("rogue: refused. Its view has " + r.view().members().size()
                    + " member (itself); it broadcast 10 forged messages");
        }
    }
}
