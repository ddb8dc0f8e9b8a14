package org.fts.loadtest.campaign;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * One Grinder run: a Grinder agent JVM (and the worker JVMs it forks) driving {@code clients} threads through
 * hello.py against the references in an IOGR file, until every client is through its phases or the deadline
 * passes. The agent runs on its own classpath: this module's classes first (the JVM-version shim must
 * precede grinder-core), then {@code target/grinder-lib}, then FTS's runtime classpath without its slf4j jars.
 * Every process started is killed, with its descendants, when the run ends, times out, or this JVM exits.
 */
final class GrinderRun {
    /**
     * Clients (threads) per Grinder worker process, sharing one ORB, at most. The paper ran 250 per client
     * machine; on one 2-core machine shared with the replicas, 250 per process cost more CPU per call (more
     * JVMs and connections) than 1000 (measured: TAB at 800 clients, 535 vs 1032 calls/s).
     */
    static final int MAX_THREADS_PER_PROCESS = 1000;
    private static final Set<ProcessHandle> RUNNING = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> RUNNING.forEach(GrinderRun::killTree),
                "reap-grinder"));
    }

    private GrinderRun() {
    }

    /** Worker processes for {@code clients}: the fewest that divide them evenly with ≤ 1000 threads each. */
    static int processesFor(int clients) {
        int p = (clients + MAX_THREADS_PER_PROCESS - 1) / MAX_THREADS_PER_PROCESS;
        while (clients % p != 0) {
            p++;
        }
        return p;
    }

    /**
     * Runs the agent in {@code dir} (which receives grinder.properties, the script, the sync markers and
     * Grinder's logs under {@code logs/}) and waits for it, at most until {@code deadlineMillis} plus 60 s.
     * {@code sampler} also samples the agent's and workers' CPU time while they run.
     *
     * @return the directory of Grinder's logs
     */
    static Path run(Path dir, int clients, int warmupPerClient, int measurePerClient, Path iogrs,
                    Properties orbProps, long deadlineMillis, ReplicaSampler sampler)
            throws IOException, InterruptedException {
        Path logs = Files.createDirectories(dir.resolve("logs"));
        Path sync = Files.createDirectories(dir.resolve("sync"));
        Path script = copyResource("hello.py", dir);
        Path logback = copyResource("logback-grinder.xml", dir);
        int processes = processesFor(clients);
        Properties g = new Properties();
        g.setProperty("grinder.script", script.toString());
        g.setProperty("grinder.processes", Integer.toString(processes));
        g.setProperty("grinder.threads", Integer.toString(clients / processes));
        g.setProperty("grinder.runs", "1");
        g.setProperty("grinder.useConsole", "false");
        g.setProperty("grinder.logDirectory", logs.toString());
        g.setProperty("grinder.jvm.arguments", "-Xmx768m -Xss512k -Djava.net.preferIPv4Stack=true"
                + " -XX:+IgnoreUnrecognizedVMOptions --add-opens=java.base/java.lang=ALL-UNNAMED"
                + " -Dlogback.configurationFile=" + logback);
        g.setProperty("fts.campaign.warmup", Integer.toString(warmupPerClient));
        g.setProperty("fts.campaign.measure", Integer.toString(measurePerClient));
        g.setProperty("fts.campaign.deadline", Long.toString(deadlineMillis));
        g.setProperty("fts.campaign.sync", sync.toString());
        g.setProperty("fts.campaign.iogrs", iogrs.toString());
        for (Map.Entry<Object, Object> e : orbProps.entrySet()) {
            g.setProperty("fts.campaign.orb." + e.getKey(), e.getValue().toString());
        }
        Path propsFile = dir.resolve("grinder.properties");
        try (var out = Files.newOutputStream(propsFile)) {
            g.store(out, "written by the FTS campaign runner");
        }
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> cmd = List.of(java, "-Xmx128m", "-Dlogback.configurationFile=" + logback, "-cp", classpath(),
                GrinderAgent.class.getName(), propsFile.toString());
        Process agent = new ProcessBuilder(cmd).directory(dir.toFile())
                .redirectOutput(dir.resolve("agent.out").toFile())
                .redirectError(dir.resolve("agent.err").toFile()).start();
        ProcessHandle handle = agent.toHandle();
        RUNNING.add(handle);
        sampler.clients(handle);
        try {
            waitForAgent(agent, sync, processes, deadlineMillis + 60_000, sampler);
            if (agent.exitValue() != 0) {
                throw new IOException("the Grinder agent failed (exit " + agent.exitValue() + "); see "
                        + dir.resolve("agent.err"));
            }
            return logs;
        } finally {
            killTree(handle);
            RUNNING.remove(handle);
        }
    }

    /**
     * Waits for the agent to exit, at most until {@code limitMillis}. When every worker process has left a
     * {@code warm-<n>} marker, and again when each has left {@code done-<n>}, the replicas and clients are
     * sampled; after the second sample the {@code stop} marker ends the clients' tail load (hello.py).
     */
    private static void waitForAgent(Process agent, Path sync, int processes, long limitMillis,
                                     ReplicaSampler sampler) throws IOException, InterruptedException {
        boolean warmSampled = false;
        boolean stopped = false;
        while (!agent.waitFor(50, TimeUnit.MILLISECONDS)) {
            if (System.currentTimeMillis() > limitMillis) {
                throw new IOException("the Grinder agent did not finish by its deadline; see "
                        + sync.resolveSibling("agent.err") + " and " + sync.resolveSibling("logs"));
            }
            if (!warmSampled && allMarked(sync, "warm", processes)) {
                sampler.sampleNow();
                warmSampled = true;
            }
            if (!stopped && allMarked(sync, "done", processes)) {
                sampler.sampleNow();
                Files.createFile(sync.resolve("stop"));
                stopped = true;
            }
        }
    }

    private static boolean allMarked(Path sync, String kind, int processes) {
        for (int p = 0; p < processes; p++) {
            if (!Files.exists(sync.resolve(kind + "-" + p))) {
                return false;
            }
        }
        return true;
    }

    /** Kills the agent and its worker JVMs (SIGKILL) and waits up to 10 s for each to be gone. */
    private static void killTree(ProcessHandle p) {
        List<ProcessHandle> tree = new ArrayList<>(p.descendants().toList());
        tree.add(p);
        tree.forEach(ProcessHandle::destroyForcibly);
        for (ProcessHandle h : tree) {
            h.onExit().orTimeout(10, TimeUnit.SECONDS).exceptionally(t -> h).join();
        }
    }

    private static Path copyResource(String name, Path dir) throws IOException {
        Path target = dir.resolve(name);
        try (InputStream in = GrinderRun.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("resource " + name + " missing from the loadtest jar");
            }
            Files.copy(in, target, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
        return target;
    }

    /** This module's classes, the Grinder runtime, then FTS's runtime classpath minus its slf4j binding. */
    static String classpath() {
        Path self;
        try {
            self = Path.of(GrinderRun.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
        Path grinderLib = self.getParent().resolve("grinder-lib");   // loadtest/target/{classes,fts-loadtest.jar}
        File[] grinderJars = grinderLib.toFile().listFiles((d, n) -> n.endsWith(".jar"));
        if (grinderJars == null || grinderJars.length == 0) {
            throw new IllegalStateException("no Grinder runtime in " + grinderLib
                    + "; build with 'mvn -B -DskipTests package' (or bin/fts build)");
        }
        List<String> cp = new ArrayList<>();
        cp.add(self.toString());
        for (File jar : grinderJars) {
            cp.add(jar.getPath());
        }
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            String file = Path.of(entry).getFileName().toString();
            if (!entry.isEmpty() && !cp.contains(entry) && !file.startsWith("slf4j-") && !file.startsWith("xchart")) {
                cp.add(entry);
            }
        }
        return String.join(File.pathSeparator, cp);
    }
}
