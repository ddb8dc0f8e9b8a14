package org.fts.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/**
 * The shipped systemd unit (config/fts-replica@.service) means what it says: every {@code Environment=} line
 * parses, by systemd's quoting rules, into whole {@code KEY=VALUE} assignments ({@code JAVA_OPTS} keeps both its
 * options), {@code ExecStart} runs the archive's launcher, and, where {@code systemd-analyze} exists, {@code
 * systemd-analyze verify} finds nothing to say about it.
 */
class SystemdUnitTest {
    private static final Path UNIT = Path.of("src", "dist", "config", "fts-replica@.service");

    /**
     * The assignments of one {@code Environment=} value: words split on whitespace outside double or single
     * quotes, quotes removed; a word that is not {@code NAME=VALUE} is what systemd ignores ("Invalid environment assignment").
     */
    static List<String> words(String value) {
        List<String> out = new ArrayList<>();
        StringBuilder w = new StringBuilder();
        char quote = 0;
        boolean in = false;
        for (char c : value.toCharArray()) {
            if (quote != 0) {
                if (c == quote) {
                    quote = 0;
                } else {
                    w.append(c);
                }
            } else if (c == '"' || c == '\'') {
                quote = c;
                in = true;
            } else if (Character.isWhitespace(c)) {
                if (in) {
                    out.add(w.toString());
                    w.setLength(0);
                    in = false;
                }
            } else {
                w.append(c);
                in = true;
            }
        }
        if (in) {
            out.add(w.toString());
        }
        return out;
    }

    static Map<String, String> environment(List<String> unitLines) {
        Map<String, String> env = new LinkedHashMap<>();
        for (String line : unitLines) {
            if (line.startsWith("Environment=")) {
                for (String word : words(line.substring("Environment=".length()))) {
                    int eq = word.indexOf('=');
                    assertTrue(eq > 0 && word.substring(0, eq).matches("[A-Za-z_][A-Za-z0-9_]*"),
                            "systemd would ignore '" + word + "' (not NAME=VALUE) in: " + line);
                    env.put(word.substring(0, eq), word.substring(eq + 1));
                }
            }
        }
        return env;
    }

    @Test
    void environmentLinesAreWholeAssignments() throws Exception {
        List<String> lines = Files.readAllLines(UNIT, StandardCharsets.UTF_8);
        Map<String, String> env = environment(lines);
        assertEquals("-Xmx1g -Djava.net.preferIPv4Stack=true", env.get("JAVA_OPTS"));
        assertEquals("/opt/fts", env.get("FTS_HOME"));
        assertTrue(lines.contains("ExecStart=/opt/fts/bin/fts replica --config /etc/fts/%i.properties"), lines.toString());
        assertTrue(lines.contains("KillSignal=SIGTERM") && lines.contains("SuccessExitStatus=143"));
        assertTrue(lines.containsAll(List.of("[Unit]", "[Service]", "[Install]")));
        // the logs' default location (fts.durability.dir unset: $STATE_DIRECTORY), never the working directory /
        assertTrue(lines.contains("StateDirectory=fts"), lines.toString());
        // a replica that refused to start (ReplicaRunner's status 2) is not restarted every 2 s forever
        assertTrue(lines.contains("Restart=on-failure") && lines.contains("RestartPreventExitStatus=2"),
                lines.toString());
    }

    @Test
    void theUnquotedLineOfOldIsCaught() {
        // the line the unit shipped with before: systemd split it and dropped -Djava.net.preferIPv4Stack=true
        org.junit.jupiter.api.Assertions.assertThrows(AssertionError.class,
                () -> environment(List.of("Environment=JAVA_OPTS=-Xmx1g -Djava.net.preferIPv4Stack=true")));
    }

    @Test
    void systemdAnalyzeVerifyHasNothingToSay() throws Exception {
        Path analyze = Path.of("/usr/bin/systemd-analyze");
        if (!Files.isExecutable(analyze)) {
            return;   // not on this machine: the parse above is the check (docs/deployment.md)
        }
        Path dir = Files.createTempDirectory(Path.of("target"), "unit-");
        // the instance of the template, with the launcher where the test can see it (verify checks ExecStart)
        String unit = Files.readString(UNIT).replace("/opt/fts/bin/fts",
                Path.of("src", "dist", "bin", "fts").toAbsolutePath().toString());
        Path file = dir.resolve("fts-replica@bank.service");
        Files.writeString(file, unit);
        Process p = new ProcessBuilder(analyze.toString(), "verify", file.toString()).redirectErrorStream(true)
                .start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "systemd-analyze verify ends");
        String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertEquals(0, p.exitValue(), said);
        assertEquals("", said, "systemd-analyze verify " + file);
    }
}
