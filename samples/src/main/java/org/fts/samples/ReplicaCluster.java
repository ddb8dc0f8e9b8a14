package org.fts.samples;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
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
 * their stdin closes). Once closed it starts nothing more. Faults: {@link #kill} (SIGKILL), {@link #pause} /
 * {@link #resume} (SIGSTOP / SIGCONT), and {@code isolate} / {@code heal} through {@link #command}. Used by the
 * demo, the process tests, the benchmarks and the chaos harness.
 */
public final class ReplicaCluster implements AutoCloseable {
    private final List<Process> processes = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final Map<String, String> references = new ConcurrentHashMap<>();
    private final List<Integer> ports = new ArrayList<>();
    private final List<BlockingQueue<String>> statsAnswers = new ArrayList<>();
    private final List<BlockingQueue<String>> digestAnswers = new ArrayList<>();
    private final List<CountDownLatch> ready = new ArrayList<>();
    private final List<CountDownLatch> started = new ArrayList<>();
    private final String group;
    private final boolean plain;
    private final List<String> extra;
    private final List<String> args;
    private final Path logDir;
    private final String endpoints;
    private final Thread hook = new Thread(this::close, "reap-replicas");
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
        this.group = group;
        this.plain = plain;
        this.extra = List.copyOf(extra);
        this.args = List.copyOf(args);
        this.logDir = logDir;
        Runtime.getRuntime().addShutdownHook(hook);
        Files.createDirectories(logDir);
        int count = plain ? 1 : n;
        for (int i = 0; i < count; i++) {
            ports.add(freePort());
        }
        this.endpoints = String.join(",", ports.stream().map(p -> "127.0.0.1:" + p).toList());
        try {
            for (int i = 0; i < count; i++) {
                processes.add(null);
                statsAnswers.add(new LinkedBlockingQueue<>());
                digestAnswers.add(new LinkedBlockingQueue<>());
                ready.add(null);
                started.add(null);
            }
            for (int i = 0; i < count; i++) {
                launch(i, List.of());
                if (i == 0) {
                    await(started, 0, "start");   // r0 first, so that it is the group's coordinator
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

    private synchronized void launch(int i, List<String> more) throws IOException {
        if (closed) {   // a fault schedule may still restart a replica while the run is being torn down
            throw new IllegalStateException("the cluster is closed: r" + i + " is not started again");
        }
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> cmd = new ArrayList<>(List.of(java, "-Xmx512m", "-Djava.net.preferIPv4Stack=true",
                "-DOAPort=" + ports.get(i), "-Dfts.group=" + group, "-Dfts.replica.id=r" + i,
                "-Dfts.replicas=" + endpoints));
        cmd.addAll(extra);
        cmd.addAll(more);
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), Replica.class.getName()));
        if (plain) {
            cmd.add("--plain");
        }
        cmd.addAll(args);
        Process p = new ProcessBuilder(cmd)
                .redirectError(ProcessBuilder.Redirect.appendTo(logDir.resolve(group + "-r" + i + ".err").toFile()))
                .start();
        processes.set(i, p);
        CountDownLatch latch = new CountDownLatch(1);
        ready.set(i, latch);
        CountDownLatch startLatch = new CountDownLatch(1);
        started.set(i, startLatch);
        BlockingQueue<String> stats = statsAnswers.get(i);
        BlockingQueue<String> digests = digestAnswers.get(i);
        Thread reader = new Thread(() -> drain(p, latch, startLatch, stats, digests), "replica-out-" + i);
        reader.setDaemon(true);
        reader.start();
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
    public void relaunch(int i, List<String> more) throws IOException {
        Process old = processes.get(i);
        if (old.isAlive()) {
            throw new IllegalStateException("r" + i + " is still running");
        }
        launch(i, more);
    }

    /** Whether replica {@code i}'s current process runs and has said {@code READY} (joined, state installed). */
    public synchronized boolean isReady(int i) {
        return processes.get(i).isAlive() && ready.get(i).getCount() == 0;
    }

    /** Whether replica {@code i}'s current process runs (paused counts as running). */
    public boolean isAlive(int i) {
        return processes.get(i).isAlive();
    }

    /** The process id of replica {@code i}'s current process. */
    public long pid(int i) {
        return processes.get(i).pid();
    }

    /** Stops replica {@code i} with SIGSTOP: it holds its sockets open but answers nothing (a hang). */
    public void pause(int i) throws IOException, InterruptedException {
        signal(i, "STOP");
    }

    /** Continues replica {@code i} with SIGCONT after {@link #pause}. */
    public void resume(int i) throws IOException, InterruptedException {
        signal(i, "CONT");
    }

    private void signal(int i, String signal) throws IOException, InterruptedException {
        long pid = pid(i);
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).redirectErrorStream(true).start();
        if (!kill.waitFor(10, TimeUnit.SECONDS)) {
            kill.destroyForcibly();   // reaped either way: kill(1) never takes this long
            throw new IOException("kill -" + signal + " " + pid + " did not finish within 10 s");
        }
        if (kill.exitValue() != 0) {
            throw new IOException("kill -" + signal + " " + pid + " (r" + i + ") failed: "
                    + new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim());
        }
    }

    /** Kills replica {@code i} with SIGKILL and waits until it is gone. */
    public void kill(int i) throws InterruptedException {
        Process p = processes.get(i);
        p.destroyForcibly();
        if (!p.waitFor(10, TimeUnit.SECONDS)) {
            throw new IllegalStateException("r" + i + " did not die within 10 s of SIGKILL");
        }
    }

    /** Sends a line to replica {@code i}'s stdin (its commands: stats, digest, isolate, heal). */
    public void command(int i, String line) throws IOException {
        OutputStream in = processes.get(i).getOutputStream();
        in.write((line + "\n").getBytes(StandardCharsets.US_ASCII));
        in.flush();
    }

    /**
     * Replica {@code i}'s state digest (objects, reply cache, group reference), taken between two executions.
     * Fails if it does not answer within 15 s.
     */
    public String digest(int i) throws IOException, InterruptedException {
        digestAnswers.get(i).clear();
        command(i, "digest");
        String d = digestAnswers.get(i).poll(15, TimeUnit.SECONDS);
        if (d == null) {
            throw new IOException("replica r" + i + " did not answer 'digest' within 15 s");
        }
        return d;
    }

    private void awaitReady(int i) throws InterruptedException {
        await(ready, i, "serve");
    }

    private void await(List<CountDownLatch> latches, int i, String what) throws InterruptedException {
        if (!latches.get(i).await(90, TimeUnit.SECONDS)) {
            throw new IllegalStateException("replica r" + i + " did not " + what + " within 90 s; see "
                    + logDir.resolve(group + "-r" + i + ".err"));
        }
    }

    private void drain(Process p, CountDownLatch ready, CountDownLatch started, BlockingQueue<String> statsAnswers,
                       BlockingQueue<String> digestAnswers) {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                if (line.startsWith("IOGR ")) {
                    String[] f = line.split(" ", 3);
                    references.putIfAbsent(f[1], f[2]);
                } else if (line.startsWith("STATS ")) {
                    statsAnswers.add(line.split(" ", 3)[2]);
                } else if (line.startsWith("DIGEST ")) {
                    digestAnswers.add(line.split(" ", 3)[2]);
                } else if (line.startsWith("STARTED")) {
                    started.countDown();
                } else if (line.startsWith("READY")) {
                    started.countDown();
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

    /** Kills every replica still running (SIGKILL, paused ones too) and waits for each. Idempotent. */
    @Override
    public void close() {
        synchronized (this) {
            closed = true;
        }
        for (Process p : processes) {
            if (p != null) {
                p.destroyForcibly();
            }
        }
        for (Process p : processes) {
            if (p == null) {
                continue;
            }
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
