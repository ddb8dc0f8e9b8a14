package org.fts.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A JVM started by a test, with the test's class path: its stdout lines are collected (and can be awaited),
 * its stderr goes to {@code target/child-logs/NAME.err} and, once reaped, its stdout to {@code NAME.out}. Every child is reaped by {@link #close()} (use
 * try-with-resources), and, should the test JVM exit first, by a shutdown hook: no test leaves a process.
 */
public final class ChildProcess implements AutoCloseable {
    private static final Set<ChildProcess> LIVE = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> LIVE.forEach(ChildProcess::close), "reap-children"));
    }

    private final String name;
    private final Process process;
    private final List<String> lines = new ArrayList<>();
    private final Thread reader;

    private ChildProcess(String name, Process process) {
        this.name = name;
        this.process = process;
        this.reader = new Thread(this::readStdout, "stdout-" + name);
        this.reader.setDaemon(true);
        this.reader.start();
    }

    /**
     * Starts {@code java [jvmArgs] -cp <test class path> mainClass args}.
     */
    public static ChildProcess start(String name, Class<?> mainClass, List<String> jvmArgs, String... args)
            throws IOException {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> cmd = new ArrayList<>();
        cmd.add(java);
        cmd.addAll(jvmArgs);
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(mainClass.getName());
        cmd.addAll(List.of(args));
        Path logs = Path.of("target", "child-logs");
        Files.createDirectories(logs);
        ProcessBuilder pb = new ProcessBuilder(cmd)
                .redirectError(logs.resolve(name + ".err").toFile())
                .redirectInput(ProcessBuilder.Redirect.PIPE);
        ChildProcess child = new ChildProcess(name, pb.start());
        LIVE.add(child);
        return child;
    }

    private void readStdout() {
        try (BufferedReader in = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                synchronized (lines) {
                    lines.add(line);
                    lines.notifyAll();
                }
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
     */
    public <T> T awaitLines(java.util.function.Function<List<String>, T> check, Duration timeout, String what) {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (lines) {
            while (true) {
                T result = check.apply(lines);
                if (result != null) {
                    return result;
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new AssertionError(name + ": timed out after " + timeout.toMillis() + " ms waiting for "
                            + what + "; last lines: " + tail());
                }
                if (!process.isAlive() && !reader.isAlive()) {
                    throw new AssertionError(name + " exited (" + process.exitValue() + ") before " + what
                            + "; last lines: " + tail() + "; see target/child-logs/" + name + ".err");
                }
                try {
                    lines.wait(Math.max(1, Math.min(TimeUnit.NANOSECONDS.toMillis(left), 200)));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new AssertionError("interrupted waiting for " + what);
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

    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    public String name() {
        return name;
    }

    /** Sends a signal with the real {@code kill} command (e.g. KILL, STOP, CONT). */
    public void signal(String signal) throws IOException, InterruptedException {
        signal(process, signal);
    }

    /** Sends a signal to any process with the real {@code kill} command; fails if it cannot be delivered. */
    public static void signal(Process process, String signal) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).inheritIO().start();
        if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            throw new IOException("kill -" + signal + " " + process.pid() + " failed");
        }
    }

    /**
     * Asks a live child for a thread dump (SIGQUIT; the JVM prints it on stdout, so it lands in
     * {@code NAME.out} when the child is reaped). For post-mortems of failed tests.
     */
    public void requestThreadDump() {
        if (process.isAlive()) {
            try {
                signal("QUIT");
                awaitLine(l -> l.startsWith("JNI global refs"), java.time.Duration.ofSeconds(5), "the thread dump");
            } catch (IOException | InterruptedException | AssertionError e) {
                // best effort: the test is failing already
            }
        }
    }

    /** {@code kill -9}, then waits (bounded) until the process is gone. */
    public void kill9() throws IOException, InterruptedException {
        signal("KILL");
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            throw new AssertionError(name + " survived kill -9");
        }
    }

    /** Reaps the child: SIGKILL if still alive, then waits for it. Idempotent, never throws. */
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
        try {
            Files.write(Path.of("target", "child-logs", name + ".out"), lines());
        } catch (IOException ignored) {
            // the collected stdout is kept for post-mortems only
        }
    }

    @Override
    public String toString() {
        return name + "(pid " + process.pid() + ")";
    }
}
