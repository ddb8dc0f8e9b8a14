package com.example.kv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * docs/guide.md, steps 6 and 7, run as the guide says after {@code mvn package}: three {@code ./run-replica.sh N},
 * then {@code ./run-client.sh} calls, a {@code kill -9} of replica 1, more calls, and a restarted replica 1 that
 * gets the store's state from the others. Every process started here is reaped by its PID, also on failure.
 */
class GuideIT {
    private static final File DIR = new File(".");
    private final List<Process> replicas = new ArrayList<>();
    private final List<Process> all = new ArrayList<>();

    @AfterEach
    void reap() throws InterruptedException {
        for (Process p : all) {
            p.destroyForcibly();   // run-replica.sh execs java: this is the replica's own PID
        }
        for (Process p : all) {
            p.waitFor(10, TimeUnit.SECONDS);
        }
    }

    private Process replica(int n) throws IOException {
        Path log = Path.of("target", "replica-" + n + ".log");
        Process p = new ProcessBuilder("./run-replica.sh", Integer.toString(n)).directory(DIR)
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
        all.add(p);
        return p;
    }

    /** Waits (bounded) until replica n's log says it serves, or fails if it exits first. */
    private static void awaitReady(Process p, int n) throws Exception {
        Path log = Path.of("target", "replica-" + n + ".log");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (!(Files.exists(log) && Files.readString(log).contains("kv replica ready"))) {
            assertTrue(p.isAlive(), () -> "replica " + n + " exited: " + tail(log));
            assertTrue(System.nanoTime() < deadline, () -> "replica " + n + " not ready in 90 s: " + tail(log));
            p.waitFor(100, TimeUnit.MILLISECONDS);   // bounded poll of its log
        }
    }

    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size()));
        } catch (IOException e) {
            return "(no log)";
        }
    }

    private String client(String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("./run-client.sh"));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).directory(DIR)   // logs go to stderr: kept in target/client.log
                .redirectError(ProcessBuilder.Redirect.appendTo(new File("target/client.log"))).start();
        all.add(p);
        StringBuilder out = new StringBuilder();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                out.append(line).append('\n');
            }
        }
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the client did not finish");
        assertEquals(0, p.exitValue(), () -> "client " + String.join(" ", args) + " failed:\n" + out);
        return out.toString().trim();   // what the guide shows: the result line
    }

    @Test
    void theGuidesStoreServesSurvivesAKillAndARestartedReplicaCatchesUp() throws Exception {
        Files.deleteIfExists(Path.of("target", "store.ior"));
        for (int n = 1; n <= 3; n++) {
            Files.writeString(Path.of("target", "replica-" + n + ".log"), "");   // "ready" from this run only
        }
        for (int n = 1; n <= 3; n++) {
            replicas.add(replica(n));
            if (n == 1) {
                awaitReady(replicas.get(0), 1);   // the first to start founds the group once a majority is there
            }
        }
        for (int n = 1; n <= 3; n++) {
            awaitReady(replicas.get(n - 1), n);
        }
        assertEquals("previous: ''", client("put", "colour", "blue"));
        assertEquals("previous: 'blue'", client("put", "colour", "green"));
        assertEquals("colour = 'green'", client("get", "colour"));
        assertEquals("missing not found", client("get", "missing"));

        replicas.get(0).destroyForcibly();   // kill -9 of replica 1
        assertTrue(replicas.get(0).waitFor(10, TimeUnit.SECONDS));
        assertEquals("previous: ''", client("put", "size", "large"));
        assertEquals("size: 2", client("size"));

        Files.writeString(Path.of("target", "replica-1.log"), "");   // its next "ready" is the restarted one's
        replicas.set(0, replica(1));
        awaitReady(replicas.get(0), 1);   // ready: it holds the group's state, fetched from replica 2 or 3
        // The client tries the profiles in order, so replica 1 (the first) answers again now.
        assertEquals("colour = 'green'", client("get", "colour"));
        assertEquals("size: 2", client("size"));
        assertEquals("removed: true", client("remove", "size"));
        assertEquals("size: 1", client("size"));
    }
}
