package org.fts.testkit;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.fts.process.ChildJvm;
import org.fts.process.Ports;

/**
 * Starts sample replicas as separate JVMs on 127.0.0.1 (JGroups over loopback), waits until each serves, and
 * reaps them all on {@link #close()}, also when the launcher dies ({@link ChildJvm}'s shutdown hook, and
 * replicas exit when their stdin closes). Once closed it starts nothing more. Faults: {@link #kill} (SIGKILL),
 * {@link #pause} / {@link #resume} (SIGSTOP / SIGCONT), and {@code isolate} / {@code heal} through
 * {@link #command}. Used by the demo, the process tests, the benchmarks and the chaos harness.
 */
public final class ReplicaCluster implements AutoCloseable {
    /**
     * A program argument of the cluster, not of the replicas: they run as a service manager runs them, without
     * {@code --stdin-control} and with stdin closed at once (no {@link #command}s then).
     */
    public static final String AS_SERVICES = "--as-services";

    private static final Duration START = Duration.ofSeconds(90);

    private final List<ReplicaProcess> members = new CopyOnWriteArrayList<>();
    private final Map<String, String> references = new ConcurrentHashMap<>();
    private final List<Integer> ports = new ArrayList<>();
    private final List<Integer> probePorts = new ArrayList<>();
    private final String group;
    private final boolean plain;
    private final List<String> extra;
    private final List<String> args;
    private final Path logDir;
    private final String endpoints;
    private final List<String> hosts = new ArrayList<>();
    /** The ORB property each replica's port goes to: OAPort, or OASSLPort for TLS-only replicas. */
    private final String portProperty;
    /** JVM options that place the replicas on distinct hosts (JGroups over TCP); empty on one host. */
    private final List<String> placement = new ArrayList<>();
    private final Map<Integer, Map<String, String>> environments = new ConcurrentHashMap<>();
    /** JVM options of each replica's own, after the shared ones. */
    private final Map<Integer, List<String>> options = new ConcurrentHashMap<>();
    /** The build each replica runs, where it is not the test's ({@link #build}). */
    private final Map<Integer, String> builds = new ConcurrentHashMap<>();
    /** Replicas started under another id than {@code r<i>} ({@link #relaunchAs}). */
    private final Map<Integer, String> ids = new java.util.HashMap<>();
    /**
     * This group's own multicast port, unless the caller names one: groups that share an address and port
     * receive each other's traffic and discard it (JGroups' JGRP000012), which costs every one of them CPU.
     */
    private final List<String> multicast = new ArrayList<>();
    /**
     * The replicas' log directory when the caller names none: a fresh one per cluster, kept across restarts and
     * deleted at {@link #close()}, so that no run meets an earlier run's log (null: the caller named one).
     */
    private final Path dataDir;
    private boolean closed;

    /**
     * @param n     replicas (0 with {@code plain}: one unreplicated RootPOA server)
     * @param extra more JVM options for every replica, e.g. {@code -Dfts.batching=tab}
     */
    public ReplicaCluster(String group, int n, boolean plain, List<String> extra, Path logDir) throws Exception {
        this(group, n, plain, extra, List.of(), logDir);
    }

    /** @param args more program arguments for every replica, e.g. {@code --hello-objects 800} */
    public ReplicaCluster(String group, int n, boolean plain, List<String> extra, List<String> args, Path logDir)
            throws Exception {
        this(group, java.util.Collections.nCopies(plain ? 1 : n, "127.0.0.1"), plain, extra, args, logDir, "OAPort",
                Map.of());
    }

    /**
     * {@code hosts.size()} replicas, on those addresses (the {@code tcp} stack when they differ, as {@link #onHosts}),
     * replica {@code i}'s processes started with {@code environments.get(i)} added to their environment (e.g. a wall
     * clock skewed through libfaketime), from the first start on.
     */
    public static ReplicaCluster withEnvironments(String group, List<String> hosts, List<String> extra,
                                                  List<String> args, Path logDir,
                                                  Map<Integer, Map<String, String>> environments) throws Exception {
        return new ReplicaCluster(group, hosts, false, extra, args, logDir, "OAPort", environments);
    }

    /**
     * Replicas on distinct hosts, one per address in {@code hosts} (e.g. 127.0.0.2, 127.0.0.3, 127.0.0.4 as
     * stand-ins): each binds IIOP and JGroups to its own address, and the group runs the {@code tcp} stack
     * with every host in {@code initial_hosts}, as docs/deployment.md describes.
     */
    public static ReplicaCluster onHosts(String group, List<String> hosts, List<String> extra, Path logDir)
            throws Exception {
        return onHosts(group, hosts, extra, List.of(), logDir);
    }

    /** {@link #onHosts(String, List, List, Path)} with more program arguments for every replica. */
    public static ReplicaCluster onHosts(String group, List<String> hosts, List<String> extra, List<String> args,
                                         Path logDir) throws Exception {
        return new ReplicaCluster(group, hosts, false, extra, args, logDir, "OAPort", Map.of());
    }

    /**
     * {@link #onHosts(String, List, List, Path)} with JVM options of replica {@code i}'s own, {@code options.get(i)},
     * after the shared ones, at every start (e.g. a directory per replica, as separate hosts have).
     */
    public static ReplicaCluster onHosts(String group, List<String> hosts, List<String> extra,
                                         Map<Integer, List<String>> options, Path logDir) throws Exception {
        return new ReplicaCluster(group, hosts, false, extra, List.of(), logDir, "OAPort", Map.of(), options);
    }

    /**
     * TLS-only replicas on 127.0.0.1 ({@code tls}: {@link Tls#server} as JVM options): each listens on its TLS
     * port ({@code OASSLPort}) only, and {@code fts.replicas} and {@link #ports()} name those.
     */
    public static ReplicaCluster overTls(String group, int n, List<String> tls, Path logDir) throws Exception {
        return new ReplicaCluster(group, java.util.Collections.nCopies(n, "127.0.0.1"), false, tls, List.of(), logDir,
                "OASSLPort", Map.of());
    }

    private ReplicaCluster(String group, List<String> hosts, boolean plain, List<String> extra, List<String> args,
                           Path logDir, String portProperty, Map<Integer, Map<String, String>> environments)
            throws Exception {
        this(group, hosts, plain, extra, args, logDir, portProperty, environments, Map.of());
    }

    private ReplicaCluster(String group, List<String> hosts, boolean plain, List<String> extra, List<String> args,
                           Path logDir, String portProperty, Map<Integer, Map<String, String>> environments,
                           Map<Integer, List<String>> options) throws Exception {
        this.options.putAll(options);
        this.group = group;
        this.environments.putAll(environments);
        this.portProperty = portProperty;
        this.plain = plain;
        this.extra = List.copyOf(extra);
        this.args = List.copyOf(args);
        this.logDir = logDir;
        this.hosts.addAll(hosts);
        for (String host : hosts) {
            ports.add(Ports.free(host));
            probePorts.add(Ports.free(host));
        }
        List<String> endpointList = new ArrayList<>();
        for (int i = 0; i < hosts.size(); i++) {
            endpointList.add(hosts.get(i) + ":" + ports.get(i));
        }
        this.endpoints = String.join(",", endpointList);
        if (new java.util.HashSet<>(hosts).size() > 1) {
            int tcp = Ports.free("127.0.0.1");
            placement.addAll(List.of("-Dfts.jgroups.stack=tcp", "-Dfts.jgroups.tcp_port=" + tcp,
                    "-Dfts.jgroups.port_range=0", "-Dfts.jgroups.initial_hosts="
                            + String.join(",", hosts.stream().map(h -> h + "[" + tcp + "]").toList())));
        }
        dataDir = plain || extra.stream().anyMatch(o -> o.startsWith("-Dfts.durability.dir=")) ? null
                : java.nio.file.Files.createTempDirectory("fts-data-");
        if (!plain && extra.stream().noneMatch(o -> o.startsWith("-Dfts.jgroups.mcast_port="))) {
            multicast.add("-Dfts.jgroups.mcast_port=" + Ports.freeUdp());
        }
        int count = hosts.size();
        try {
            for (int i = 0; i < count; i++) {
                members.add(launch(i, List.of()));
                if (i == 0) {   // r0 first, so that it is the group's coordinator
                    members.get(0).jvm.awaitLine(l -> l.startsWith("STARTED") || l.startsWith("READY"), START,
                            "r0 to start");
                }
            }
            for (int i = 0; i < count; i++) {
                awaitReady(i);   // serving: a majority formed, and each holds the group's state
            }
        } catch (Exception e) {
            close();
            throw e;
        }
    }

    private synchronized ReplicaProcess launch(int i, List<String> more) throws IOException {
        if (closed) {   // a fault schedule may still restart a replica while the run is being torn down
            throw new IllegalStateException("the cluster is closed: r" + i + " is not started again");
        }
        List<String> jvmArgs = new ArrayList<>(List.of("-Xmx512m", "-Djava.net.preferIPv4Stack=true",
                "-DOAIAddr=" + hosts.get(i), "-D" + portProperty + "=" + ports.get(i), "-Dfts.group=" + group,
                "-Dfts.replica.id=" + id(i), "-Dfts.replicas=" + endpoints,
                "-Dfts.jgroups.probe_port=" + probePorts.get(i)));
        jvmArgs.addAll(multicast);
        if (dataDir != null) {
            jvmArgs.add("-Dfts.durability.dir=" + dataDir);
        }
        if (!placement.isEmpty()) {
            jvmArgs.addAll(placement);
            // the shipped tcp stack binds its outgoing connections to it too (client_bind_addr): unbound, they
            // would leave from 127.0.0.1, and a host's traffic could not be told from the clients'
            jvmArgs.add("-Dfts.jgroups.bind_addr=" + hosts.get(i));
        }
        int jmxPort = Ports.free(hosts.get(i));   // a fresh one per process: figures are read over JMX
        jvmArgs.addAll(ReplicaJmx.agentOptions(hosts.get(i), jmxPort));
        jvmArgs.addAll(extra);
        jvmArgs.addAll(options.getOrDefault(i, List.of()));
        jvmArgs.addAll(more);
        return new ReplicaProcess(group + "-" + id(i), jvmArgs, args.stream().filter(a -> !a.equals(AS_SERVICES)).toList(),
                plain, args.contains(AS_SERVICES), logDir, references, environments.getOrDefault(i, Map.of()),
                builds.getOrDefault(i, ""), new ReplicaJmx(group, id(i), hosts.get(i), jmxPort));
    }

    /**
     * Environment variables for replica {@code i}'s processes from its next start on (e.g. a skewed wall clock:
     * {@code LD_PRELOAD} of libfaketime and {@code FAKETIME}); the processes running now keep theirs.
     */
    public synchronized void environment(int i, Map<String, String> variables) {
        environments.put(i, Map.copyOf(variables));
    }

    /**
     * Replica {@code i}'s processes from their next start on run another build: {@code classPathFirst} (a jar or a
     * directory) comes before the test's class path, so what it holds replaces those classes and resources (e.g. a
     * build of a higher wire version, docs/upgrades.md). Empty: the test's own build again.
     */
    public synchronized void build(int i, String classPathFirst) {
        builds.put(i, classPathFirst);
    }

    /** The replica id replica {@code i} runs under: {@code r<i>}, unless {@link #relaunchAs} gave it another. */
    public synchronized String id(int i) {
        return ids.getOrDefault(i, "r" + i);
    }

    /**
     * Starts replica {@code i}, which must be dead, under another replica id (same address and ports, a fresh log
     * directory): a new replica replacing the one that ran there. Returns at once, like {@link #relaunch}.
     */
    public synchronized void relaunchAs(int i, String id) throws IOException {
        ids.put(i, id);
        relaunch(i, List.of());
    }

    /**
     * Sends JGroups' probe key {@code key} to replica {@code i}'s probe port (TCP, one line) and returns the
     * {@code fts.*} fields of the answer without the prefix; null if none answers within {@code timeoutMs}.
     */
    public Map<String, String> probe(int i, String key, int timeoutMs) {
        int colon = probeAddress(i).lastIndexOf(':');
        return org.fts.replica.Status.probe(probeAddress(i).substring(0, colon),
                Integer.parseInt(probeAddress(i).substring(colon + 1)), timeoutMs, key);
    }

    /** Where replica {@code i} answers JGroups' probe and {@code fts status}: {@code host:port}. */
    public String probeAddress(int i) {
        return hosts.get(i) + ":" + probePorts.get(i);
    }

    /**
     * Starts replica {@code i} again (same id, port and options, plus {@code more} JVM options) after it was
     * killed, and waits until it serves: it has joined and installed the group's state.
     */
    public void restart(int i, List<String> more) throws Exception {
        relaunch(i, more);
        awaitReady(i);
    }

    /**
     * Starts replica {@code i} again after it died, like {@link #restart}, but returns at once: joining and
     * fetching the state can take long (e.g. during a partition), and a fault schedule must not wait on it.
     * {@link #isReady} tells when it serves; {@link #close()} reaps it either way.
     */
    public synchronized void relaunch(int i, List<String> more) throws IOException {
        ChildJvm old = members.get(i).jvm;
        if (old.isAlive()) {
            throw new IllegalStateException("r" + i + " is still running");
        }
        try {
            old.close();   // keeps its stdout in the log directory
        } finally {
            members.get(i).jmx.close();
        }
        members.set(i, launch(i, more));   // under the lock: close() reaps it or it is never started
    }

    /**
     * Starts replica {@code i}, which must be dead, on {@code host} (a new address and port; same replica id and
     * options, plus {@code more}), as an operator replaces a dead host; returns at once ({@link #awaitReady}).
     * Its endpoint is not in the others' {@code fts.replicas}: it announces it to the group.
     */
    public synchronized void moveTo(int i, String host, List<String> more) throws IOException {
        hosts.set(i, host);
        ports.set(i, Ports.free(host));
        probePorts.set(i, Ports.free(host));
        relaunch(i, more);
    }

    /**
     * Starts one more replica, {@code r<n>}, on 127.0.0.1 with the cluster's options plus {@code more} (e.g.
     * {@code -Dfts.group.size=4}); returns its index at once ({@link #awaitReady}).
     */
    public synchronized int add(List<String> more) throws IOException {
        int i = members.size();
        hosts.add("127.0.0.1");
        ports.add(Ports.free("127.0.0.1"));
        probePorts.add(Ports.free("127.0.0.1"));
        members.add(launch(i, more));
        return i;
    }

    /** Whether replica {@code i}'s current process runs and has said {@code READY} (joined, state installed). */
    public boolean isReady(int i) {
        ReplicaProcess m = members.get(i);
        return m.ready && m.jvm.isAlive();
    }

    /** Whether replica {@code i}'s current process runs (paused counts as running). */
    public boolean isAlive(int i) {
        return members.get(i).jvm.isAlive();
    }

    /** The process id of replica {@code i}'s current process. */
    public long pid(int i) {
        return members.get(i).jvm.pid();
    }

    /** The process ids of every replica's current process, in replica order. */
    public List<Long> pids() {
        return members.stream().map(m -> m.jvm.pid()).toList();
    }

    /** Stops replica {@code i} with SIGSTOP: it holds its sockets open but answers nothing (a hang). */
    public void pause(int i) throws IOException, InterruptedException {
        members.get(i).jvm.signal("STOP");
    }

    /** Continues replica {@code i} with SIGCONT after {@link #pause}. */
    public void resume(int i) throws IOException, InterruptedException {
        members.get(i).jvm.signal("CONT");
    }

    /** Kills replica {@code i} with SIGKILL and waits (bounded) until it is gone. */
    public void kill(int i) throws IOException, InterruptedException {
        members.get(i).jvm.kill9();
    }

    /** Sends replica {@code i} SIGTERM: it leaves the group gracefully and exits ({@code fts.shutdown.leave}). */
    public void terminate(int i) throws IOException, InterruptedException {
        members.get(i).jvm.signal("TERM");
    }

    /** Waits up to {@code timeout} for replica {@code i} to end by itself; its exit status, if it did. */
    public OptionalInt awaitExit(int i, Duration timeout) throws InterruptedException {
        ChildJvm jvm = members.get(i).jvm;
        return jvm.waitFor(timeout) ? OptionalInt.of(jvm.exitValue()) : OptionalInt.empty();
    }

    /**
     * Replica {@code i}'s intake budget at its IIOP listener, over JMX: max, used and peak bytes, and how often a
     * reader was held back.
     */
    public long[] intake(int i) throws IOException, InterruptedException {
        return members.get(i).jmx.intake(ports.get(i));
    }

    /** Sends a line to replica {@code i}'s stdin (its commands: digest, view, isolate, heal). */
    public void command(int i, String line) throws IOException {
        members.get(i).jvm.tell(line);
    }

    /**
     * Replica {@code i}'s state digest (objects, reply cache, group reference), taken between two executions.
     * Fails if it does not answer within 15 s.
     */
    public String digest(int i) throws IOException, InterruptedException {
        return ask(i, "digest", 15);
    }

    /**
     * Waits, at most {@code bound}, until {@code replicas} give one state digest (each is taken where that replica is in
     * the order, so one still executing differs until it catches up); fails naming the digests otherwise.
     */
    public void awaitEqualDigests(List<Integer> replicas, Duration bound) {
        List<String> digests = new ArrayList<>();
        org.fts.process.Waits.await(() -> {
            digests.clear();
            for (int r : replicas) {
                try {
                    digests.add(digest(r));
                } catch (IOException e) {
                    return false;
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
            return new java.util.HashSet<>(digests).size() == 1;
        }, bound, () -> group + ": the digests of " + replicas + " differ: " + digests);
    }

    /** Replica {@code i}'s load and placement (over JMX); fails without an answer in 15 s. */
    public org.fts.goa.intake.PlacementFigures load(int i) throws IOException, InterruptedException {
        return members.get(i).jmx.placement();
    }

    /** Replica {@code i}'s declared-read counters, shown as {@code local=N ordered=M}; 15 s at most (over JMX). */
    public String reads(int i) throws IOException, InterruptedException {
        return members.get(i).jmx.reads();
    }

    /** Sends {@code command} to replica {@code i} and returns its answer, waiting at most {@code seconds}. */
    private String ask(int i, String command, int seconds) throws IOException, InterruptedException {
        BlockingQueue<String> q = queue(i, command);
        q.clear();
        command(i, command);
        return answer(i, command, q, seconds);
    }

    private BlockingQueue<String> queue(int i, String command) {
        return members.get(i).answers.computeIfAbsent(command.toUpperCase(java.util.Locale.ROOT),
                k -> new LinkedBlockingQueue<>());
    }

    private static String answer(int i, String command, BlockingQueue<String> q, int seconds)
            throws IOException, InterruptedException {
        String a = q.poll(seconds, TimeUnit.SECONDS);
        if (a == null) {
            throw new IOException("replica r" + i + " did not answer '" + command + "' within " + seconds + " s");
        }
        return a;
    }

    /**
     * Cuts replica {@code i} off from the group (JGroups DISCARD, both ways), and returns once the cut is in
     * effect. Fails if the replica does not confirm within 15 s.
     */
    public void isolate(int i) throws IOException, InterruptedException {
        fault(i, "isolate", "ISOLATED");
    }

    /** Ends {@link #isolate}, and returns once replica {@code i} confirms it (15 s at most). */
    public void heal(int i) throws IOException, InterruptedException {
        fault(i, "heal", "HEALED");
    }

    private void fault(int i, String command, String confirmation) throws IOException, InterruptedException {
        ReplicaProcess m = members.get(i);
        m.faults.clear();
        command(i, command);
        String c = m.faults.poll(15, TimeUnit.SECONDS);
        if (!confirmation.equals(c)) {
            throw new IOException("replica r" + i + " did not confirm '" + command + "' within 15 s (" + c + ")");
        }
    }

    /** The replica ids in replica {@code i}'s current group view. Fails if it does not answer within 15 s. */
    public List<String> view(int i) throws IOException, InterruptedException {
        String v = ask(i, "view", 15);
        return v.isEmpty() ? List.of() : List.of(v.split(","));
    }

    /** Waits (at most 90 s) until replica {@code i}'s current process says {@code READY}: it serves. */
    public void awaitReady(int i) {
        members.get(i).jvm.awaitLine(l -> l.startsWith("READY"), START, "r" + i + " to serve");
    }

    /**
     * The reference of sample object {@code id} as the replicas publish it: an object group reference naming
     * every replica (a plain IOR for the unreplicated server).
     */
    public String reference(String id) {
        String ior = references.get(id);
        if (ior == null) {
            throw new IllegalStateException("no replica published a reference for " + id);
        }
        return ior;
    }

    /**
     * Each replica's log figures, in replica order (over JMX; null for a replica without a log). Fails if a replica
     * does not answer within 15 s.
     */
    public List<org.fts.gc.LogFigures> logStats() throws IOException, InterruptedException {
        List<org.fts.gc.LogFigures> all = new ArrayList<>();
        for (ReplicaProcess m : members) {
            all.add(m.jmx.log());
        }
        return all;
    }

    /**
     * Each replica's cumulative batching counters, in replica order (over JMX; zeros for the plain server). Fails if a
     * replica does not answer within 15 s.
     */
    public List<BatchCounters> stats() throws IOException, InterruptedException {
        List<BatchCounters> all = new ArrayList<>();
        for (ReplicaProcess m : members) {
            all.add(m.jmx.batching());
        }
        return all;
    }

    /**
     * The UDP multicast port the group runs on (a process that means to reach the group, such as a rogue in a
     * security test, must use it): the caller's {@code -Dfts.jgroups.mcast_port}, or the one chosen for it.
     */
    public int multicastPort() {
        String prefix = "-Dfts.jgroups.mcast_port=";
        return java.util.stream.Stream.concat(extra.stream(), multicast.stream()).filter(o -> o.startsWith(prefix))
                .map(o -> Integer.valueOf(o.substring(prefix.length()))).reduce((a, b) -> b)
                .orElse(org.fts.jgroups.JGroupsStack.MCAST_PORT.defaultValue());
    }

    public List<Integer> ports() {
        return List.copyOf(ports);
    }

    /** The address each replica listens on, in replica order (127.0.0.1 unless {@link #onHosts}). */
    public List<String> hosts() {
        return List.copyOf(hosts);
    }

    public String group() {
        return group;
    }

    /** Kills every replica still running (SIGKILL, paused ones too) and waits for each. Idempotent. */
    @Override
    public void close() {
        synchronized (this) {
            closed = true;
        }
        members.forEach(m -> m.jvm.destroy());   // all at once, then each is waited for
        members.forEach(m -> m.jvm.close());
        members.forEach(m -> m.jmx.close());
        if (dataDir != null) {
            deleteTree(dataDir);
        }
    }

    private static void deleteTree(Path dir) {
        try (java.util.stream.Stream<Path> files = java.nio.file.Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException | java.io.UncheckedIOException e) {
            // best effort: a temporary directory left behind is not a failure of the run
        }
    }
}
