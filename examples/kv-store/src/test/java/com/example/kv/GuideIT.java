package com.example.kv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import org.fts.process.GuideScript;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * docs/guide.md, steps 6 and 7, pasted: the lines of the guide's two shell blocks (less {@code mvn} and {@code
 * cd}, which the build has done) run as one bash script in this directory, and every {@code ./run-client.sh}
 * line must print what its comment says ({@link GuideScript}). The only additions are the test's own bookkeeping:
 * each background job's PID is written down as it starts, so that every replica is reaped by its PID, also on
 * failure; and {@code FTS_NO_BUILD=1}, so that the guide's {@code ../../bin/fts status} uses the tree as built (in
 * FTS's reactor {@code loadtest}, whose jar it runs, comes before this example) and never starts a Maven build of its
 * own. A copy of this project outside FTS's tree has no {@code ../../docs/guide.md}: point {@link #GUIDE} at your own
 * docs or delete this test.
 */
class GuideIT {
    static final Path GUIDE = Path.of("..", "..", "docs", "guide.md");
    private GuideScript script;

    @AfterEach
    void reap() throws Exception {
        if (script != null) {
            script.close();
        }
    }

    @Test
    void theGuidesStepsSixAndSevenWorkAsPasted() throws Exception {
        script = GuideScript.fromGuide(GUIDE, Path.of("target", "guide.pids"), "## 6.", "## 7.");
        Path out = Path.of("target", "guide.out");
        int exit = script.run(Path.of("."), Map.of("FTS_NO_BUILD", "1"), out, Path.of("target", "guide.err"),
                Duration.ofSeconds(240));
        String said = Files.readString(out);
        assertTrue(exit >= 0, "the guide's steps end within 240 s:\n" + script.script());
        assertEquals(0, exit, "the guide's steps:\n" + script.script() + "\nprinted:\n" + said
                + "\nstderr: target/guide.err");
        assertEquals(script.expected(), GuideScript.printed(out), "what the guide says each call prints");
    }
}
