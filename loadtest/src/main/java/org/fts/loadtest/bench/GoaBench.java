package org.fts.loadtest.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

import fts_samples.HelloObj;
import fts_samples.HelloObjHelper;
import org.fts.samples.Clients;
import org.fts.testkit.ReplicaCluster;
import org.omg.CORBA.ORB;

/**
 * {@code bin/fts bench goa}: throughput of {@code HelloObj.set()} with a 15-character string (the paper's
 * request) from T client threads, each with its own connection spread over the servers, against 3 replica
 * processes (no batching) and against one plain JacORB RootPOA server. Prints one line per case:
 * {@code goa-bench server=fts replicas=3 threads=50 ops_per_s=... mean_us=...}.
 *
 * <p>Options: {@code --seconds S} per case (default 5), {@code --threads 1,50}, {@code --policies nb,tab}
 * (batching policies of the replicas, default nb), {@code --delivery agreed,uniform} (fts.delivery, default
 * agreed), {@code --no-plain} (skip the plain server), {@code --attach R} (thread t calls replica (t + R) mod 3; default 0),
 * {@code --security none,sym,tls,tls-jacorb} (group traffic in the clear, or encrypted with a key made for the run;
 * tls: that, and IIOP over TLS with a key pair made for the run, on the adaptor's own listener; tls-jacorb: the same
 * on JacORB's listener; default none).
 */
public final class GoaBench {
    private GoaBench() {
    }

    public static void main(String[] args) throws Exception {
        int seconds = 5;
        List<Integer> threadCounts = List.of(1, 50);
        List<String> policies = List.of("nb");
        List<String> securities = List.of("none");
        List<String> deliveries = List.of("agreed");
        boolean plainToo = true;
        int attach = 0;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--seconds" -> seconds = Integer.parseInt(args[++i]);
                case "--policies" -> policies = List.of(args[++i].split(","));
                case "--no-plain" -> plainToo = false;
                case "--attach" -> attach = Integer.parseInt(args[++i]);
                case "--delivery" -> deliveries = List.of(args[++i].split(","));
                case "--security" -> securities = List.of(args[++i].split(","));
                case "--threads" -> threadCounts = java.util.Arrays.stream(args[++i].split(",")).map(Integer::valueOf).toList();
                default -> throw new IllegalArgumentException("unknown option " + args[i]
                        + " (use --seconds S, --threads 1,50, --policies nb,tab,natural, --delivery agreed,uniform,"
                        + " --no-plain, --attach R, --security none,sym,tls,tls-jacorb)");
            }
        }
        Path logs = Path.of("target", "bench-logs");
        List<String> cases = new ArrayList<>();
        for (String p : policies) {
            for (String d : deliveries) {
                for (String sec : securities) {
                    cases.add(p + "/" + d + "/" + sec);
                }
            }
        }
        boolean anyTls = securities.stream().anyMatch(s -> s.startsWith("tls"));
        List<String> keyed = securities.contains("sym") || anyTls ? benchKey(Path.of("target", "bench-keys")) : List.of();
        String tlsPassword = "bench-" + UUID.randomUUID();
        Path tlsStore = anyTls ? org.fts.samples.Tls.keystore(Path.of("target", "bench-keys"), tlsPassword) : null;
        if (plainToo) {
            cases.add(0, "plain");
        }
        for (String c : cases) {
            boolean plain = c.equals("plain");
            String group = "bench-" + UUID.randomUUID().toString().substring(0, 6);
            String policy = c.split("/")[0];
            String delivery = plain ? "-" : c.split("/")[1];
            String security = plain ? "-" : c.split("/")[2];
            List<String> opts = new ArrayList<>(plain ? List.of()
                    : List.of("-Dfts.batching=" + policy, "-Dfts.delivery=" + delivery));
            boolean tls = security.startsWith("tls");
            if (security.equals("sym") || tls) {   // tls: encrypted group traffic too, and IIOP over TLS
                opts.addAll(keyed);
            } else if (!plain) {
                opts.add("-Dfts.jgroups.encrypt=" + security);
            }
            if (tls) {
                opts.addAll(org.fts.samples.Tls.asJvmOptions(org.fts.samples.Tls.server(tlsStore, tlsPassword)));
                opts.add("-Dfts.replica.listener=" + (security.equals("tls-jacorb") ? "jacorb" : "goa"));
            }
            try (ReplicaCluster cluster = tls ? ReplicaCluster.overTls(group, 3, opts, logs)
                    : new ReplicaCluster(group, 3, plain, opts, logs)) {
                for (int t : threadCounts) {
                    double[] r = run(cluster, t, seconds, plain ? 0 : attach,
                            tls ? org.fts.samples.Tls.client(tlsStore, tlsPassword) : null);
                    System.out.printf(Locale.ROOT, "goa-bench server=%s policy=%s delivery=%s security=%s replicas=%d "
                            + "threads=%d attach=r%d ops_per_s=%.0f mean_us=%.0f%n", plain ? "plain-poa" : "fts",
                            plain ? "-" : policy, delivery, security, plain ? 1 : 3, t, plain ? 0 : attach, r[0], r[1]);
                }
            }
        }
    }

    /** A group key made for this run (docs/security.md), as replica options. */
    private static List<String> benchKey(Path dir) throws Exception {
        char[] password = ("bench-" + UUID.randomUUID()).toCharArray();
        Path store = dir.resolve("group.p12");
        Path file = dir.resolve("group.pw");
        org.fts.jgroups.GroupSecurity.createKeystore(store, password, "fts");
        java.nio.file.Files.writeString(file, new String(password) + "\n");
        return List.of("-Dfts.jgroups.encrypt=sym", "-Dfts.jgroups.keystore=" + store.toAbsolutePath(),
                "-Dfts.jgroups.keystore_password_file=" + file.toAbsolutePath());
    }

    /**
     * Returns {ops/s, mean latency in us} over {@code seconds}, after a one-second warm-up. Thread {@code t}
     * calls replica {@code (t + attach) % n}: with one thread and {@code attach} 0 that is r0, the first to start
     * and so the group's sequencer; {@code attach} 1 puts it on a follower.
     */
    static double[] run(ReplicaCluster cluster, int threads, int seconds, int attach, java.util.Properties tls)
            throws InterruptedException {
        java.util.Properties props = Clients.orbDefaults();
        if (tls != null) {
            props.putAll(tls);
        }
        ORB orb = ORB.init(new String[0], props);
        try {
            List<HelloObj> refs = new ArrayList<>();
            org.fts.ft.Ior iogr = tls == null ? null : org.fts.ft.Ior.parse(cluster.reference("hello"));
            for (int i = 0; i < threads; i++) {
                int r = (i + attach) % cluster.ports().size();
                // One connection per server suffices. Over TLS, a replica's profile of the group reference (a
                // corbaloc names a plaintext endpoint).
                refs.add(HelloObjHelper.narrow(orb.string_to_object(tls != null
                        ? iogr.withOnly(iogr.profiles().get(r))
                        : Clients.corbaloc("127.0.0.1", cluster.ports().get(r), cluster.group(), "hello"))));
            }
            LongAdder ops = new LongAdder();
            LongAdder nanos = new LongAdder();
            AtomicBoolean measuring = new AtomicBoolean();
            AtomicBoolean stop = new AtomicBoolean();
            List<Thread> ts = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                HelloObj h = refs.get(i);
                Thread th = new Thread(() -> {
                    while (!stop.get()) {
                        long t0 = System.nanoTime();
                        h.set("fifteen chars!!");
                        if (measuring.get()) {
                            ops.increment();
                            nanos.add(System.nanoTime() - t0);
                        }
                    }
                });
                ts.add(th);
                th.start();
            }
            Thread.sleep(1000);   // warm-up (load generator pacing, not a test wait)
            measuring.set(true);
            long start = System.nanoTime();
            Thread.sleep(seconds * 1000L);
            measuring.set(false);
            double elapsed = (System.nanoTime() - start) / 1e9;
            stop.set(true);
            for (Thread th : ts) {
                th.join(60_000);
            }
            long n = ops.sum();
            return new double[] {n / elapsed, n == 0 ? 0 : nanos.sum() / 1e3 / n};
        } finally {
            orb.shutdown(false);
        }
    }
}
