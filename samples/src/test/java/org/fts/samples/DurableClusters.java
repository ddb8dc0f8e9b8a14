package org.fts.samples;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiPredicate;
import java.util.stream.IntStream;

import org.fts.replica.Status;
import org.fts.process.Waits;
import org.fts.testkit.ReplicaCluster;

/** Replica clusters with {@code fts.durability=log} for the process tests, and {@code fts status} over them. */
final class DurableClusters {
    private DurableClusters() {
    }

    /** Three replicas with {@code fts.durability=log}, their logs in a directory of their own under target/. */
    static ReplicaCluster create(String prefix) throws Exception {
        return create(prefix, Files.createTempDirectory(Path.of("target"), prefix + "-"));
    }

    /** Three replicas with {@code fts.durability=log}, their logs under {@code data}. */
    static ReplicaCluster create(String prefix, Path data) throws Exception {
        return new ReplicaCluster(prefix + "-" + UUID.randomUUID().toString().substring(0, 6), 3, false,
                List.of("-Dfts.durability=log", "-Dfts.durability.dir=" + data.toAbsolutePath()),
                Path.of("target", "child-logs"));
    }

    /**
     * Asks {@code fts status} over replicas {@code which} until its exit code and answer satisfy {@code until} (90 s,
     * else an error naming {@code what} and the last answer); returns that answer.
     */
    static String awaitStatus(ReplicaCluster cluster, BiPredicate<Integer, String> until, String what,
                              int... which) {
        String at = String.join(",", IntStream.of(which).mapToObj(cluster::probeAddress).toList());
        AtomicReference<String> last = new AtomicReference<>("");
        Waits.await(() -> {
            ByteArrayOutputStream buf = new ByteArrayOutputStream();
            int exit = Status.run(new String[] {"--at", at, "--group", cluster.group()},
                    new PrintStream(buf, true, StandardCharsets.UTF_8));
            last.set(buf.toString(StandardCharsets.UTF_8));
            return until.test(exit, last.get());
        }, Duration.ofSeconds(90), () -> "fts status " + what + "; last answer:\n" + last.get());
        return last.get();
    }
}
