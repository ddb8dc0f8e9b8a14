package org.fts.process;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A JVM whose files may not grow past a size ({@code ulimit -f}): a real full disk for one process, whose next write
 * fails as on a full volume (the JVM ignores SIGXFSZ, so the write returns EFBIG). It runs a class of this JVM's class
 * path to its end; a process that outlives the wait is killed and reaped before the failure is reported.
 */
public final class FileLimitedJvm {
    /** How the process ended: its exit status and its output (stdout and stderr together). */
    public record Result(int exit, String output) {
    }

    private FileLimitedJvm() {
    }

    /**
     * Runs {@code main} with {@code args}, its files limited to {@code kib} KiB, its output in a file under {@code
     * outDir}, and waits up to {@code timeout} for it to end by itself.
     *
     * @throws IllegalStateException if it did not end in time (it is killed first)
     */
    public static Result run(Class<?> main, long kib, Path outDir, Duration timeout, String... args)
            throws IOException, InterruptedException {
        Path out = Files.createTempFile(outDir, main.getSimpleName() + "-", ".out");
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> command = new ArrayList<>(List.of("bash", "-c", "ulimit -f " + kib
                + " && exec \"$0\" -cp \"$1\" " + main.getName() + " \"${@:2}\"", java,
                System.getProperty("java.class.path")));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile()).start();
        try {
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException(main.getName() + " under ulimit -f " + kib + " did not end within "
                        + timeout.toSeconds() + " s: " + Files.readString(out));
            }
            return new Result(p.exitValue(), Files.readString(out));
        } finally {
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
        }
    }
}
