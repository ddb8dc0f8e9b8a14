package org.fts.samples;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.fts.batching.BatchStats;

/**
 * Starts sample replicas as separate JVMs on 127.0.0.1 (JGroups over loopback), waits until each serves, and
 * reaps them all on {@link #close()}, also when the launcher dies (a shutdown hook, and replicas exit when
 * their stdin closes). Used by the demo, the process tests and the benchmarks.
 */
public final class ReplicaCluster implements AutoCloseable {
    private final List<Process> processes = new ArrayList<>();
    private final Map<String, String> references = new ConcurrentHashMap<>();
    private final List<Integer> ports = new ArrayList<>();
    private final List<BlockingQueue<String>> statsAnswers = new ArrayList<>();
    private final String group;
    private final Thread hook = new Thread(this::close, "reap-replicas");

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
        this.group = group;
        Runtime.getRuntime().addShutdownHook(hook);
        Files.createDirectories(logDir);
        int count = plain ? 1 : n;
        for (int i = 0; i < count; i++) {
            ports.add(freePort());
        }
        String endpoints = String.join(",", ports.stream().map(p -> "127.0.0.1:" + p).toList());
        String java = ProcessHandle.current().info().command().orElse("java");
        List<CountDownLatch> ready = new ArrayList<>();
        try {
            for (int i = 0; i < count; i++) {
                List<String> cmd = new ArrayList<>(List.of(java, "-Xmx512m", "-Djava.net.preferIPv4Stack=true",
                        "-DOAPort=" + ports.get(i), "-Dfts.group=" + group, "-Dfts.replica.id=r" + i,
                        "-Dfts.replicas=" + endpoints));
                cmd.addAll(extra);
                cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), Replica.class.getName()));
                if (plain) {
                    cmd.add("--plain");
                }
                cmd.addAll(args);
                Process p = new ProcessBuilder(cmd)
                        .redirectError(logDir.resolve(group + "-r" + i + ".err").toFile()).start();
                processes.add(p);
                CountDownLatch latch = new CountDownLatch(1);
                ready.add(latch);
                BlockingQueue<String> answers = new LinkedBlockingQueue<>();
                statsAnswers.add(answers);
                Thread reader = new Thread(() -> drain(p, latch, answers), "replica-out-" + i);
                reader.setDaemon(true);
                reader.start();
                if (i == 0) {
                    awaitReady(latch, 0, logDir);   // r0 first, so that it is the group's coordinator
                }
            }
            for (int i = 1; i < count; i++) {
                awaitReady(ready.get(i), i, logDir);
            }
        } catch (Exception e) {
            close();
            throw e;
        }
    }

    private void awaitReady(CountDownLatch ready, int i, Path logDir) throws InterruptedException {
        if (!ready.await(60, TimeUnit.SECONDS)) {
            throw new IllegalStateException("replica r" + i + " did not start within 60 s; see "
                    + logDir.resolve(group + "-r" + i + ".err"));
        }
    }

    private void drain(Process p, CountDownLatch ready, BlockingQueue<String> statsAnswers) {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                if (line.startsWith("IOGR ")) {
                    String[] f = line.split(" ", 3);
                    references.putIfAbsent(f[1], f[2]);
                } else if (line.startsWith("STATS ")) {
                    statsAnswers.add(line.split(" ", 3)[2]);
                } else if (line.startsWith("READY")) {
                    ready.countDown();
                }
            }
        } catch (IOException ignored) {
            // the replica ended
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
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
     * Each replica's cumulative batching counters, in replica order (asks over stdin; zeros for the plain
     * server). Fails if a replica does not answer within 5 s.
     */
    public List<BatchStats.Counters> stats() throws IOException, InterruptedException {
        for (Process p : processes) {
            p.getOutputStream().write("stats\n".getBytes(StandardCharsets.US_ASCII));
            p.getOutputStream().flush();
        }
        List<BatchStats.Counters> all = new ArrayList<>();
        for (int i = 0; i < processes.size(); i++) {
            String line = statsAnswers.get(i).poll(5, TimeUnit.SECONDS);
            if (line == null) {
                throw new IOException("replica r" + i + " did not answer 'stats' within 5 s");
            }
            all.add(BatchStats.Counters.parse(line));
        }
        return all;
    }

    public List<Integer> ports() {
        return List.copyOf(ports);
    }

    public String group() {
        return group;
    }

    public List<Process> processes() {
        return List.copyOf(processes);
    }

    /** Kills every replica still running (SIGKILL) and waits for each. Idempotent. */
    @Override
    public void close() {
        for (Process p : processes) {
            p.destroyForcibly();
        }
        for (Process p : processes) {
            try {
                p.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException ignored) {
            // already shutting down: the hook is this call
        }
    }
}
