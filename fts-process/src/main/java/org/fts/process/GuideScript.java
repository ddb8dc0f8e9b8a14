package org.fts.process;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A guide's shell steps run as written (the examples' guide tests): the lines of its {@code ```bash} blocks, less
 * {@code mvn} and {@code cd} (the build has done those), run as one bash script with {@code set -e}. The lines that
 * show their output in a trailing comment ({@code ./run-client.sh get k   # k = 'v'}) are checked against what the
 * script prints, in order; {@code <word>} in a comment stands for one word that varies (a time, a count).
 *
 * <p>The only additions to the guide's lines are bookkeeping: each background job's PID is appended to a file as it
 * starts ({@code cmd &}, or {@code cmd & name=$!}), and {@link #close} kills what the script started: its
 * descendants, and each job written down that still carries this run's mark in its environment (a PID the system
 * gave to another process since is left alone).
 */
public final class GuideScript implements AutoCloseable {
    /** A line's command and its trailing comment: the comment starts at the first {@code #} after white space. */
    private static final Pattern COMMENTED = Pattern.compile("^(.*?)\\s+#\\s?(.*)$");
    private static final Pattern PLACEHOLDER = Pattern.compile("<\\w+>");
    /** The environment variable that marks the processes of one run. */
    static final String MARK = "FTS_GUIDE_SCRIPT";

    /** The lines that print what their comment says in the examples' guides: foreground clients, and waits. */
    public static final Predicate<String> CLIENTS_AND_WAITS = cmd -> cmd.startsWith("./run-client.sh")
            && !cmd.contains("&") || cmd.startsWith("wait ");

    private final String script;
    private final List<String> expected;
    private final Path pids;
    private final String mark = UUID.randomUUID().toString();
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
     * The script of {@code lines}; {@code shows} picks the lines (by their command, comment removed) whose trailing
     * comment is what they print. Background jobs' PIDs go to {@code pids}.
     */
    public static GuideScript of(List<String> lines, Predicate<String> shows, Path pids) {
        String bookkeeping = "echo $! >> '" + pids.toAbsolutePath() + "'";
        StringBuilder sh = new StringBuilder("set -e\n");
        List<String> expected = new ArrayList<>();
        for (String line : lines) {
            Matcher m = COMMENTED.matcher(line);
            String cmd = (m.matches() ? m.group(1) : line).trim();
            if (cmd.isEmpty() || cmd.startsWith("mvn ") || cmd.startsWith("cd ")) {
                continue;   // the build has done these
            }
            if (shows.test(cmd)) {
                if (!m.matches()) {
                    throw new IllegalArgumentException("a line of the guide that prints shows its output: " + line);
                }
                expected.add(m.group(2).trim());
            }
            if (cmd.endsWith("&") && !cmd.endsWith("&&")) {
                sh.append(cmd).append(' ').append(bookkeeping);   // "cmd & echo ...": the job ends its own list
            } else if (cmd.matches(".*[^&]&\\s+\\w+=\\$!")) {
                sh.append(cmd).append("; ").append(bookkeeping);
            } else {
                sh.append(cmd);
            }
            sh.append('\n');
        }
        return new GuideScript(sh.toString(), List.copyOf(expected), pids);
    }

    /**
     * The script of the blocks under {@code headings} in the guide at {@code guide}, in that order, whose foreground
     * clients and waits print what their comments say ({@link #CLIENTS_AND_WAITS}).
     */
    public static GuideScript fromGuide(Path guide, Path pids, String... headings) throws IOException {
        List<String> text = Files.readAllLines(guide, StandardCharsets.UTF_8);
        List<String> lines = new ArrayList<>();
        for (String heading : headings) {
            lines.addAll(block(text, heading));
        }
        return of(lines, CLIENTS_AND_WAITS, pids);
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
        pb.environment().put(MARK, mark);
        process = pb.start();
        if (!process.waitFor(bound.toMillis(), TimeUnit.MILLISECONDS)) {
            close();
            return -1;
        }
        return process.exitValue();
    }

    /** What the script printed to {@code out}, less the lines ending in " ready" (the examples' servers print those). */
    public static List<String> printed(Path out) throws IOException {
        return Files.readAllLines(out, StandardCharsets.UTF_8).stream().filter(l -> !l.endsWith(" ready")).toList();
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
        Matcher m = PLACEHOLDER.matcher(expected);
        int last = 0;
        while (m.find()) {
            regex.append(Pattern.quote(expected.substring(last, m.start()))).append("\\S+");
            last = m.end();
        }
        return Pattern.compile(regex.append(Pattern.quote(expected.substring(last))).toString());
    }

    /** Kills what the script started (see the class comment) and waits for each, at most 10 s. */
    @Override
    public void close() throws IOException {
        Map<Long, ProcessHandle> doomed = new HashMap<>();
        if (process != null) {
            process.descendants().forEach(h -> doomed.put(h.pid(), h));
            doomed.put(process.pid(), process.toHandle());
        }
        if (Files.exists(pids)) {
            for (String line : Files.readAllLines(pids)) {
                try {
                    ProcessHandle.of(Long.parseLong(line.trim())).filter(this::marked)
                            .ifPresent(h -> doomed.put(h.pid(), h));
                } catch (NumberFormatException notAPid) {
                    // a line the script garbled: the others are still reaped
                }
            }
        }
        doomed.values().forEach(ProcessHandle::destroyForcibly);
        for (ProcessHandle h : doomed.values()) {
            h.onExit().orTimeout(10, TimeUnit.SECONDS).exceptionally(t -> h).join();
        }
    }

    /** Whether {@code h} carries this run's mark in its environment (Linux: /proc/PID/environ). */
    private boolean marked(ProcessHandle h) {
        try {
            String env = new String(Files.readAllBytes(Path.of("/proc", Long.toString(h.pid()), "environ")),
                    StandardCharsets.UTF_8);
            return env.contains(MARK + "=" + mark + "\0") || env.endsWith(MARK + "=" + mark);
        } catch (IOException | RuntimeException gone) {
            return false;
        }
    }
}
