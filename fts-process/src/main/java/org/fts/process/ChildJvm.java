package org.fts.process;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * A JVM started with the caller's class path: its stdout lines are collected (they can be awaited, and a
 * listener sees each as it comes), its stderr is appended to {@code <logs>/<name>.err}, and once reaped its
 * stdout is appended to {@code <logs>/<name>.out}. Every child is reaped by {@link #close()}, and, should the
 * starting JVM exit first, by one shutdown hook for all children: nobody leaves a process behind.
 */
public final class ChildJvm implements AutoCloseable {
    private static final Set<ChildJvm> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> LIVE.forEach(ChildJvm::close), "reap-children"));
    }

    /**
     * Options every child JVM gets before its own ({@code -Dfts.child.jvm_options="-XX:TieredStopAtLevel=1"}): the
     * build's tests start short-lived replicas, and their JIT compiling for code they run for seconds is most of
     * their CPU on a small machine. Benchmarks and the demo leave it unset.
     */
    static final String EXTRA_OPTIONS_PROPERTY = "fts.child.jvm_options";
    private static final List<String> EXTRA_OPTIONS = List.of(
            System.getProperty(EXTRA_OPTIONS_PROPERTY, "").trim().split("\\s+")).stream()
            .filter(o -> !o.isEmpty()).toList();

    private final String name;
    private final Path logs;
    private final Process process;
    private final List<String> lines = new ArrayList<>();
    private final Consumer<String> listener;
    private final Thread reader;
    private final AtomicBoolean outWritten = new AtomicBoolean();

    private ChildJvm(String name, Path logs, Process process, Consumer<String> listener) {
        this.name = name;
        this.logs = logs;
        this.process = process;
        this.listener = listener;
        this.reader = new Thread(this::readStdout, "stdout-" + name);
        this.reader.setDaemon(true);
        this.reader.start();
    }

    /**
     * Starts {@code java [jvmArgs] -cp <this JVM's class path> mainClass [args]}; stderr is appended to
     * {@code logs/name.err}; {@code listener} sees every stdout line (on the reading thread).
     */
    public static ChildJvm start(String name, Class<?> mainClass, List<String> jvmArgs, List<String> args, Path logs,
                                 Consumer<String> listener) throws IOException {
        return start(name, mainClass, jvmArgs, args, logs, java.util.Map.of(), listener);
    }

    /**
     * {@link #start(String, Class, List, List, Path, Consumer)} with {@code environment} added to this process's
     * environment (e.g. {@code LD_PRELOAD} and {@code FAKETIME} for a child whose wall clock is skewed).
     */
    public static ChildJvm start(String name, Class<?> mainClass, List<String> jvmArgs, List<String> args, Path logs,
                                 java.util.Map<String, String> environment, Consumer<String> listener)
            throws IOException {
        return start(name, mainClass, jvmArgs, args, logs, environment, "", listener);
    }

    /**
     * {@link #start(String, Class, List, List, Path, java.util.Map, Consumer)} with {@code classPathFirst} (a jar or
     * directory, or empty) before this JVM's class path: what it holds is found before the rest (e.g. another build
     * of a module).
     */
    public static ChildJvm start(String name, Class<?> mainClass, List<String> jvmArgs, List<String> args, Path logs,
                                 java.util.Map<String, String> environment, String classPathFirst,
                                 Consumer<String> listener) throws IOException {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> cmd = new ArrayList<>();
        cmd.add(java);
        cmd.addAll(EXTRA_OPTIONS);
        cmd.addAll(jvmArgs);
        cmd.add("-cp");
        cmd.add((classPathFirst.isEmpty() ? "" : classPathFirst + File.pathSeparator)
                + System.getProperty("java.class.path"));
        cmd.add(mainClass.getName());
        cmd.addAll(args);
        Files.createDirectories(logs);
        ProcessBuilder pb = new ProcessBuilder(cmd)
                .redirectError(ProcessBuilder.Redirect.appendTo(logs.resolve(name + ".err").toFile()))
                .redirectInput(ProcessBuilder.Redirect.PIPE);
        pb.environment().putAll(environment);
        ChildJvm child = new ChildJvm(name, logs, pb.start(), listener);
        LIVE.add(child);
        return child;
    }

    /** {@link #start(String, Class, List, List, Path, Consumer)} with logs in {@code target/child-logs}. */
    public static ChildJvm start(String name, Class<?> mainClass, List<String> jvmArgs, String... args)
            throws IOException {
        return start(name, mainClass, jvmArgs, List.of(args), Path.of("target", "child-logs"), l -> { });
    }

    private void readStdout() {
        try (BufferedReader in = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                synchronized (lines) {
                    lines.add(line);
                    lines.notifyAll();
                }
                listener.accept(line);
            }
        } catch (IOException e) {
            // the process died or was killed: its output simply ends
        }
        synchronized (lines) {
            lines.notifyAll();
        }
    }

    /** A snapshot of every stdout line so far. */
    public List<String> lines() {
        synchronized (lines) {
            return new ArrayList<>(lines);
        }
    }

    /** Waits for a stdout line matching {@code match}; fails after {@code timeout} or if the child exits. */
    public String awaitLine(Predicate<String> match, Duration timeout, String what) {
        return awaitLines(l -> l.stream().filter(match).findFirst().orElse(null), timeout, what);
    }

    /**
     * Waits until {@code check} returns non-null over the stdout lines so far; re-checked on every new line.
     *
     * @throws IllegalStateException after {@code timeout}, or if the child exits first
     */
    public <T> T awaitLines(Function<List<String>, T> check, Duration timeout, String what) {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (lines) {
            while (true) {
                T result = check.apply(lines);
                if (result != null) {
                    return result;
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new IllegalStateException(name + ": timed out after " + timeout.toMillis()
                            + " ms waiting for " + what + "; last lines: " + tail());
                }
                if (!process.isAlive() && !reader.isAlive()) {
                    throw new IllegalStateException(name + " exited (" + process.exitValue() + ") before " + what
                            + "; last lines: " + tail() + "; see " + logs.resolve(name + ".err"));
                }
                try {
                    lines.wait(Math.max(1, Math.min(TimeUnit.NANOSECONDS.toMillis(left), 200)));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted waiting for " + what);
                }
            }
        }
    }

    private List<String> tail() {
        return lines.subList(Math.max(0, lines.size() - 5), lines.size());
    }

    /** Writes one line to the child's stdin. */
    public void tell(String line) throws IOException {
        process.getOutputStream().write((line + "\n").getBytes(StandardCharsets.UTF_8));
        process.getOutputStream().flush();
    }

    /** Closes the child's stdin: it reads end-of-file from then on, as under {@code </dev/null} or systemd. */
    public void closeStdin() throws IOException {
        process.getOutputStream().close();
    }

    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** Waits up to {@code timeout} for the child to end; returns whether it did. */
    public boolean waitFor(Duration timeout) throws InterruptedException {
        return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** The exit status; only once the child ended. */
    public int exitValue() {
        return process.exitValue();
    }

    public String name() {
        return name;
    }

    /** Sends a signal with the real {@code kill} command (KILL, STOP, CONT, QUIT); fails if not delivered. */
    public void signal(String signal) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid()))
                .redirectErrorStream(true).start();
        if (!kill.waitFor(10, TimeUnit.SECONDS)) {
            kill.destroyForcibly();   // reaped either way: kill(1) never takes this long
            throw new IOException("kill -" + signal + " " + process.pid() + " did not finish within 10 s");
        }
        if (kill.exitValue() != 0) {
            throw new IOException("kill -" + signal + " " + process.pid() + " (" + name + ") failed: "
                    + new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim());
        }
    }

    /** {@code kill -9}, then waits (bounded) until the process is gone. */
    public void kill9() throws IOException, InterruptedException {
        process.destroyForcibly();   // SIGKILL on Unix
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            throw new IllegalStateException(name + " survived kill -9 for 10 s");
        }
    }

    /**
     * Asks a live child for a thread dump (SIGQUIT; the JVM prints it on stdout, kept in {@code name.out}
     * once reaped). For post-mortems.
     */
    public void requestThreadDump() {
        if (process.isAlive()) {
            try {
                signal("QUIT");
                awaitLine(l -> l.startsWith("JNI global refs"), Duration.ofSeconds(5), "the thread dump");
            } catch (IOException | InterruptedException | IllegalStateException e) {
                // best effort: whoever asks is failing already
            }
        }
    }

    /** SIGKILL (paused too), without waiting: {@link #close()} waits. For stopping several children at once. */
    public void destroy() {
        process.destroyForcibly();
    }

    /**
     * Reaps the child: SIGKILL if still running (paused too), then waits for it, and appends its stdout to
     * {@code <logs>/<name>.out} (a child started again under the same name adds to it). Idempotent, never throws.
     */
    @Override
    public void close() {
        LIVE.remove(this);
        if (process.isAlive()) {
            try {
                process.getOutputStream().close();
            } catch (IOException ignored) {
                // closing stdin is a courtesy; the kill below is what counts
            }
            process.destroyForcibly();
        }
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (!outWritten.compareAndSet(false, true)) {
            return;
        }
        try {
            reader.join(2_000);   // the rest of its stdout, already in the pipe
            List<String> out = new ArrayList<>();
            out.add("---- " + name + " (pid " + process.pid() + ")");
            out.addAll(lines());
            Files.write(logs.resolve(name + ".out"), out, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException ignored) {
            // the collected stdout is kept for post-mortems only
        }
    }

    @Override
    public String toString() {
        return name + "(pid " + process.pid() + ")";
    }
}
