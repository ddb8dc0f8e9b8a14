package org.fts.process;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * A guide's shell steps run as written (the examples' guide tests): the lines of its {@code ```bash} blocks, less
 * {@code mvn} and {@code cd} (the build has done those), run as one bash script with {@code set -e}. The lines that
 * show their output in a trailing comment ({@code ./run-client.sh get k   # k = 'v'}) are checked against what the
 * script prints, in order; {@code <...>} in a comment stands for one word that varies (a time, a count).
 *
 * <p>The only additions to the guide's lines are bookkeeping: each background job's PID is appended to a file as it
 * starts ({@code cmd &}, or {@code cmd & name=$!}), and {@link #close} kills every one of them and every process the
 * script started, also when the test failed.
 */
public final class GuideScript implements AutoCloseable {
    private static final Pattern PLACEHOLDER = Pattern.compile("<[^>]+>");

    private final String script;
    private final List<String> expected;
    private final Path pids;
    private Process process;

    private GuideScript(String script, List<String> expected, Path pids) {
        this.script = script;
        this.expected = expected;
        this.pids = pids;
    }

    /** The shell lines of the first {@code ```bash} block after the heading that starts with {@code heading}. */
    public static List<String> block(List<String> guide, String heading) {
        int h = 0;
        while (h < guide.size() && !guide.get(h).startsWith(heading)) {
            h++;
        }
        int start = h;
        while (start < guide.size() && !guide.get(start).startsWith("```bash")) {
            start++;
        }
        if (start >= guide.size()) {
            throw new IllegalArgumentException("no ```bash block under a heading starting with '" + heading + "'");
        }
        List<String> out = new ArrayList<>();
        for (int i = start + 1; !guide.get(i).startsWith("```"); i++) {
            out.add(guide.get(i));
        }
        return out;
    }

    /**
     * The script of {@code lines}; {@code shows} picks the lines (their command, comment removed) whose trailing
     * comment is what they print. Background jobs' PIDs go to {@code pids}.
     */
    public static GuideScript of(List<String> lines, Predicate<String> shows, Path pids) {
        StringBuilder sh = new StringBuilder("set -e\n");
        List<String> expected = new ArrayList<>();
        for (String line : lines) {
            String cmd = line.replaceAll("\\s+#.*$", "").trim();
            if (cmd.isEmpty() || cmd.startsWith("mvn ") || cmd.startsWith("cd ")) {
                continue;   // the build has done these
            }
            if (shows.test(cmd)) {
                int comment = line.indexOf("# ");
                if (comment < 0) {
                    throw new IllegalArgumentException("a line of the guide that prints shows its output: " + line);
                }
                expected.add(line.substring(comment + 2).trim());
            }
            String bookkeeping = "echo $! >> " + pids.toAbsolutePath();
            if (cmd.endsWith("&")) {
                sh.append(cmd).append(' ').append(bookkeeping);   // "cmd & echo ...": the job ends its own list
            } else if (cmd.matches(".*&\\s+\\w+=\\$!")) {
                sh.append(cmd).append("; ").append(bookkeeping);
            } else {
                sh.append(cmd);
            }
            sh.append('\n');
        }
        return new GuideScript(sh.toString(), List.copyOf(expected), pids);
    }

    /** The script as run. */
    public String script() {
        return script;
    }

    /** What the lines that show their output say they print, in order. */
    public List<String> expected() {
        return expected;
    }

    /**
     * Runs the script in {@code dir} with {@code env} added, its output to {@code out} and {@code err}, waiting at most
     * {@code bound}; returns its exit status, or -1 if it did not end in time (it is then killed).
     */
    public int run(Path dir, Map<String, String> env, Path out, Path err, Duration bound)
            throws IOException, InterruptedException {
        Files.deleteIfExists(pids);
        ProcessBuilder pb = new ProcessBuilder("bash", "-c", script).directory(dir.toFile())
                .redirectOutput(out.toFile()).redirectError(err.toFile());
        pb.environment().putAll(env);
        process = pb.start();
        if (!process.waitFor(bound.toMillis(), TimeUnit.MILLISECONDS)) {
            close();
            return -1;
        }
        return process.exitValue();
    }

    /** Whether {@code printed} is what the guide says, line for line, each placeholder standing for one word. */
    public boolean matches(List<String> printed) {
        if (printed.size() != expected.size()) {
            return false;
        }
        for (int i = 0; i < expected.size(); i++) {
            if (!pattern(expected.get(i)).matcher(printed.get(i)).matches()) {
                return false;
            }
        }
        return true;
    }

    private static Pattern pattern(String expected) {
        StringBuilder regex = new StringBuilder();
        var m = PLACEHOLDER.matcher(expected);
        int last = 0;
        while (m.find()) {
            regex.append(Pattern.quote(expected.substring(last, m.start()))).append("\\S+");
            last = m.end();
        }
        return Pattern.compile(regex.append(Pattern.quote(expected.substring(last))).toString());
    }

    /** Kills the script, what it started and every background job it wrote down, and waits for each (bounded). */
    @Override
    public void close() throws IOException, InterruptedException {
        List<ProcessHandle> doomed = new ArrayList<>();
        if (process != null) {
            process.descendants().forEach(doomed::add);
            doomed.add(process.toHandle());
        }
        if (Files.exists(pids)) {
            for (String pid : Files.readAllLines(pids)) {
                if (!pid.isBlank()) {
                    ProcessHandle.of(Long.parseLong(pid.trim())).ifPresent(doomed::add);
                }
            }
        }
        doomed.forEach(ProcessHandle::destroyForcibly);
        for (ProcessHandle h : doomed) {
            h.onExit().orTimeout(10, TimeUnit.SECONDS).exceptionally(t -> h).join();
        }
    }
}
