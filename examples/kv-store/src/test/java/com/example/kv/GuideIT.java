package com.example.kv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * docs/guide.md, steps 6 and 7, pasted: the lines of the guide's two shell blocks (less {@code mvn} and {@code
 * cd}, which the build has done) run as one bash script in this directory, and every {@code ./run-client.sh}
 * line must print what its comment says. The only additions are the test's own bookkeeping: each background
 * job's PID is written down as it starts, so that every replica is reaped by its PID, also on failure; and
 * {@code FTS_NO_BUILD=1}, so that the guide's {@code ../../bin/fts status} uses the tree as built (in FTS's reactor
 * {@code loadtest}, whose jar it runs, comes before this example) and never starts a Maven build of its own. A copy of
 * this project outside FTS's tree has no {@code ../../docs/guide.md}: point {@link #GUIDE} at your own docs or
 * delete this test.
 */
class GuideIT {
    static final Path GUIDE = Path.of("..", "..", "docs", "guide.md");
    private static final Path PIDS = Path.of("target", "guide.pids");
    private Process script;

    @AfterEach
    void reap() throws IOException, InterruptedException {
        if (script != null) {
            script.descendants().forEach(ProcessHandle::destroyForcibly);
            script.destroyForcibly();
            script.waitFor(10, TimeUnit.SECONDS);
        }
        if (Files.exists(PIDS)) {
            for (String pid : Files.readAllLines(PIDS)) {
                ProcessHandle.of(Long.parseLong(pid.trim())).ifPresent(ProcessHandle::destroyForcibly);
            }
        }
    }

    /** The shell lines of the guide's block under the heading that starts with {@code heading}. */
    static List<String> block(List<String> guide, String heading) {
        int h = 0;
        while (!guide.get(h).startsWith(heading)) {
            h++;
        }
        int start = h;
        while (!guide.get(start).startsWith("```bash")) {
            start++;
        }
        List<String> out = new ArrayList<>();
        for (int i = start + 1; !guide.get(i).startsWith("```"); i++) {
            out.add(guide.get(i));
        }
        return out;
    }

    @Test
    void theGuidesStepsSixAndSevenWorkAsPasted() throws Exception {
        List<String> guide = Files.readAllLines(GUIDE, StandardCharsets.UTF_8);
        List<String> lines = new ArrayList<>(block(guide, "## 6."));
        lines.addAll(block(guide, "## 7."));
        StringBuilder sh = new StringBuilder("set -e\n");
        List<String> expected = new ArrayList<>();
        for (String line : lines) {
            String cmd = line.replaceAll("\\s+#.*$", "").trim();
            if (cmd.isEmpty() || cmd.startsWith("mvn ") || cmd.startsWith("cd ")) {
                continue;   // the build has done these
            }
            if (cmd.startsWith("./run-client.sh")) {
                assertTrue(line.contains("# "), "a client line of the guide shows its output: " + line);
                expected.add(line.substring(line.indexOf("# ") + 2).trim());
            }
            sh.append(cmd.endsWith("&") ? cmd + " echo $! >> " + PIDS + "\n" : cmd + "\n");
        }
        Files.deleteIfExists(PIDS);
        Path out = Path.of("target", "guide.out");
        ProcessBuilder pb = new ProcessBuilder("bash", "-c", sh.toString()).redirectOutput(out.toFile())
                .redirectError(Path.of("target", "guide.err").toFile());
        pb.environment().put("FTS_NO_BUILD", "1");   // the guide's ../../bin/fts: no nested Maven build
        script = pb.start();
        assertTrue(script.waitFor(240, TimeUnit.SECONDS), "the guide's steps end");
        String said = Files.readString(out);
        assertEquals(0, script.exitValue(), "the guide's steps:\n" + sh + "\nprinted:\n" + said
                + "\nstderr: target/guide.err");
        List<String> printed = said.lines().filter(l -> !l.equals("kv replica ready")).toList();
        assertEquals(expected, printed, "what the guide says each call prints");
    }
}
