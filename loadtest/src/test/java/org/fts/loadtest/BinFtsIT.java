package org.fts.loadtest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/**
 * The README's main job, {@code bin/fts demo}, and {@code bin/fts config}, run from the tree as this build packaged it
 * ({@code loadtest/target/fts-loadtest.jar} and {@code target/lib}: the class path every {@code bin/fts} command uses).
 * A module the tools need only at run time, missing from that class path, fails here and not on a user's machine.
 */
class BinFtsIT {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    @Test
    void theDemoRunsToTheEndFromThePackagedTree() throws Exception {
        String out = run(List.of("demo"), 240);
        assertTrue(out.contains("FTS demo: done"), out);
    }

    @Test
    void configListsTheKeysOfEveryModuleOnTheToolsClassPath() throws Exception {
        String out = run(List.of("config"), 60);
        for (String key : List.of("fts.jgroups.stack", "fts.gc.jgroups.ordering", "fts.gc.raft.members",
                "fts.durability", "fts.batching", "fts.replica.listener")) {
            assertTrue(out.contains("`" + key + "`"), key + " missing from bin/fts config:\n" + out);
        }
    }

    /** {@code bin/fts args} with no nested build; its output (both streams); fails unless it exits 0 in time. */
    private static String run(List<String> args, long seconds) throws IOException, InterruptedException {
        Path log = Files.createTempFile(Path.of("target"), "bin-fts-", ".log");
        List<String> command = new java.util.ArrayList<>(List.of(ROOT.resolve("bin/fts").toString()));
        command.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(command).directory(ROOT.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile());
        pb.environment().put("FTS_NO_BUILD", "1");
        Process p = pb.start();
        try {
            boolean exited = p.waitFor(seconds, TimeUnit.SECONDS);
            String out = Files.readString(log);
            assertTrue(exited, "bin/fts " + args + " still running after " + seconds + " s:\n" + out);
            assertEquals(0, p.exitValue(), "bin/fts " + args + " failed:\n" + out);
            return out;
        } finally {
            if (p.isAlive()) {
                p.destroy();   // SIGTERM: the demo's JVM reaps its replicas at exit
                if (!p.waitFor(15, TimeUnit.SECONDS)) {
                    p.destroyForcibly().waitFor(15, TimeUnit.SECONDS);
                }
            }
        }
    }
}
