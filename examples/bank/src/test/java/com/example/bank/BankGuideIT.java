package com.example.bank;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.fts.process.GuideScript;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * docs/guide.md, steps 9 and 10, pasted ({@link GuideScript}): the bank opens and closes accounts, transfers call a
 * replicated and a plain audit service, and a client transferring call after call survives {@code kill -9} of each
 * bank replica in turn; every foreground {@code ./run-client.sh} line and the {@code wait} for the transfers print
 * what their comments say. {@code FTS_NO_BUILD=1}: the guide's {@code ../../bin/fts status} runs the tree as built.
 * A copy of this project outside FTS's tree has no {@code ../../docs/guide.md}: point {@link #GUIDE} at your own
 * docs or delete this test.
 */
class BankGuideIT {
    static final Path GUIDE = Path.of("..", "..", "docs", "guide.md");
    private GuideScript script;

    @AfterEach
    void reap() throws Exception {
        if (script != null) {
            script.close();
        }
    }

    @Test
    void theGuidesStepsNineAndTenWorkAsPasted() throws Exception {
        script = GuideScript.fromGuide(GUIDE, Path.of("target", "guide.pids"), "## 9.", "## 10.");
        Path out = Path.of("target", "guide.out");
        int exit = script.run(Path.of("."), Map.of("FTS_NO_BUILD", "1"), out, Path.of("target", "guide.err"),
                Duration.ofSeconds(300));
        String said = Files.readString(out);
        assertTrue(exit >= 0, "the guide's steps end within 300 s:\n" + script.script() + "\nprinted:\n" + said);
        assertEquals(0, exit, "the guide's steps:\n" + script.script() + "\nprinted:\n" + said
                + "\nstderr: target/guide.err");
        List<String> printed = GuideScript.printed(out);
        assertTrue(script.matches(printed), "what the guide says each call prints:\n" + script.expected()
                + "\nprinted:\n" + printed);
    }
}
