package org.fts.loadtest.load;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.IntFunction;

import org.fts.ft.FtConstants;
import org.fts.ft.FtGroupComponent;
import org.fts.ft.Ior;
import org.fts.testkit.ReplicaCluster;

/**
 * What the driver loads: for each connection, the endpoint and object key it calls, and the server processes
 * whose CPU time is measured. Either servers the driver starts itself (the sample replica: {@code plain}, one
 * unreplicated JacORB POA server; {@code fts}, 3 replicas in the default configuration; any batching alias,
 * 3 replicas with that {@code fts.batching}), each connection with its own {@code HelloObj} as in the paper;
 * or servers it attaches to through a reference (one object for every connection).
 */
final class Target implements AutoCloseable {
    /** Where connection {@code i} goes: endpoint, object key, and the IOGR's group version (-1 for a plain IOR). */
    record Endpoint(String host, int port, byte[] objectKey, long groupVersion) {
    }

    static final int REPLICAS = 3;

    final String label;
    private final ReplicaCluster cluster;
    private final IntFunction<Endpoint> endpoints;
    private final List<Long> pids;
    private CpuCap cap;

    private Target(String label, ReplicaCluster cluster, IntFunction<Endpoint> endpoints, List<Long> pids) {
        this.label = label;
        this.cluster = cluster;
        this.endpoints = endpoints;
        this.pids = pids;
    }

    /**
     * Starts {@code spec}'s servers with {@code objects} HelloObj objects ({@code hello-0} ...). A spec is {@code
     * plain}, {@code fts}, a batching alias, or {@code label=alias+key=value+...}: that alias's servers with more
     * system properties, under its own label (two configurations compared in the same run).
     */
    static Target start(String spec, int objects, String call, String attach, List<String> serverOpts, Path logs,
                        double cap) throws Exception {
        int eq = spec.indexOf('=');
        String name = eq < 0 ? spec : spec.substring(0, eq);
        String[] parts = (eq < 0 ? spec : spec.substring(eq + 1)).split("\\+");
        String alias = parts[0];
        boolean plain = alias.equals("plain");
        List<String> opts = new ArrayList<>(List.of("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"));
        if (!plain) {
            if (!alias.equals("fts")) {
                opts.add("-Dfts.batching=" + alias);   // a policy alias; a bad one fails the replicas' start, named
            }
            opts.addAll(serverOpts);
        }
        for (int i = 1; i < parts.length; i++) {
            if (!parts[i].contains("=")) {
                throw new IllegalArgumentException("target " + spec + ": '" + parts[i] + "' is not key=value");
            }
            opts.add("-D" + parts[i]);
        }
        String group = "load-" + UUID.randomUUID().toString().substring(0, 6);
        ReplicaCluster cluster = new ReplicaCluster(group, REPLICAS, plain, opts,
                List.of("--hello-objects", Integer.toString(objects)), logs);
        try {
            List<String> refs = new ArrayList<>();
            for (int i = 0; i < objects; i++) {
                refs.add(cluster.reference(call.equals("increment") ? "counter" : "hello-" + i));
            }
            List<Ior> parsed = refs.stream().map(Ior::parse).toList();
            IntFunction<Endpoint> endpoints = i -> endpoint(parsed.get(i % parsed.size()), i, attach);
            Target t = new Target(name, cluster, endpoints, cluster.pids());
            if (cap > 0) {
                t.cap = CpuCap.apply(cluster.pids(), cap);
            }
            return t;
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    /** Servers the driver did not start: {@code ior} for every connection; {@code pids}, or those listening. */
    static Target attach(String ior, String attach, List<Long> pids) {
        Ior parsed = Ior.parse(ior);
        List<Long> servers = new ArrayList<>(pids);
        if (servers.isEmpty()) {
            for (Ior.Iiop iiop : iiop(parsed)) {
                ProcessCpu.listening(iiop.port()).stream().filter(x -> !servers.contains(x)).forEach(servers::add);
            }
        }
        return new Target("attached", null, i -> endpoint(parsed, i, attach), List.copyOf(servers));
    }

    /** Connection {@code i} calls the object of {@code references.get(i)} (one object per client, as in the paper). */
    static Target perClient(List<String> references, String attach) {
        List<Ior> parsed = references.stream().map(Ior::parse).toList();
        return new Target("campaign", null, i -> endpoint(parsed.get(i % parsed.size()), i, attach), List.of());
    }

    private static Endpoint endpoint(Ior ior, int connection, String attach) {
        List<Ior.Iiop> profiles = iiop(ior);
        if (profiles.isEmpty()) {
            throw new IllegalArgumentException("the reference has no IIOP profile");
        }
        Ior.Iiop p = profiles.get(attach.equals("first") ? 0 : connection % profiles.size());
        if (p.port() == 0) {
            throw new IllegalArgumentException("a TLS-only reference: the driver speaks plain IIOP");
        }
        long version = -1;
        for (Ior.Component c : p.components()) {
            if (c.tag() == FtConstants.TAG_FT_GROUP) {
                version = FtGroupComponent.decode(c.data()).refVersion();
            }
        }
        return new Endpoint(p.host(), p.port(), p.objectKey(), version);
    }

    private static List<Ior.Iiop> iiop(Ior ior) {
        return ior.profiles().stream().filter(p -> p.tag() == Ior.TAG_INTERNET_IOP)
                .map(p -> Ior.Iiop.decode(p.data())).toList();
    }

    /** Opens connection {@code i} to its endpoint, with {@code ft} FT_REQUEST (and FT_GROUP_VERSION) contexts. */
    LoadConnection connect(int i, String call, boolean ft, String runId) throws IOException {
        Endpoint e = endpoints.apply(i);
        boolean mix = call.equals(LoadOptions.MIX);
        RequestTemplate.Builder b = request(e, mix ? "get" : call, ft, runId, i);
        RequestTemplate.Builder writes = mix ? request(e, "set", ft, runId, i) : null;
        return LoadConnection.open(i, e.host(), e.port(), b, writes, LoadOptions.MIX_WRITE_EVERY, 15_000);
    }

    private static RequestTemplate.Builder request(Endpoint e, String operation, boolean ft, String runId, int i) {
        RequestTemplate.Builder b = new RequestTemplate.Builder().objectKey(e.objectKey()).operation(operation);
        if (operation.equals("set")) {
            b.body(w -> w.string("fifteen-chars.."));   // the paper's request: 15 characters
        }
        if (ft) {
            b.ftRequest("fts-load-" + runId + "-c" + i);
            if (e.groupVersion() >= 0) {
                b.groupVersion(e.groupVersion());
            }
        }
        return b;
    }

    List<Long> pids() {
        return pids;
    }

    /** A description for the output: the endpoints of the first connections. */
    String where(int connections) {
        List<String> eps = new ArrayList<>();
        for (int i = 0; i < Math.min(connections, REPLICAS); i++) {
            Endpoint e = endpoints.apply(i);
            eps.add(e.host() + ":" + e.port());
        }
        return String.join(",", eps) + " objectKey=" + new String(endpoints.apply(0).objectKey(),
                StandardCharsets.ISO_8859_1);
    }

    /** Each replica's load and placement line (over JMX), or empty for a plain or attached target. */
    List<String> loads() {
        List<String> out = new ArrayList<>();
        if (cluster == null || label.equals("plain")) {
            return out;
        }
        for (int i = 0; i < cluster.pids().size(); i++) {
            try {
                out.add("r" + i + " " + cluster.load(i));
            } catch (java.io.IOException e) {
                out.add("r" + i + " " + e.getMessage());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return out;
            }
        }
        return out;
    }

    /** Each replica's log figures, or null when the target's servers do not log (or it was attached to). */
    List<org.fts.gc.LogFigures> logFigures() {
        if (cluster == null) {
            return null;
        }
        try {
            List<org.fts.gc.LogFigures> all = cluster.logStats();
            return all.contains(null) ? null : all;
        } catch (java.io.IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    @Override
    public void close() {
        if (cluster != null) {
            cluster.close();
        }
        if (cap != null) {
            cap.close();
        }
    }
}
