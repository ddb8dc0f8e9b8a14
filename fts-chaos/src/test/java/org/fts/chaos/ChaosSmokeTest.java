package org.fts.chaos;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A real chaos run: 3 replica JVMs, 10 FT clients, the mixed nemesis for 45 s (seed 42: a kill -9 of the
 * sequencer r0, pauses, overlapping isolations that leave every replica alone for a moment, another kill),
 * then recovery, convergence and the checks: verdict PASS. About 75 s.
 *
 * <p>Uniform delivery: in the default agreed mode a sequencer cut off by a partition, or crashing right after
 * it answered, can answer requests whose effects no survivor keeps (docs/primary-view.md,
 * docs/uniform-replies.md), and the checker rightly reports them.
 */
class ChaosSmokeTest {

    @Test
    @Timeout(300)
    void aMixedRunWithUniformRepliesPassesEveryCheck() throws Exception {
        ChaosOptions o = ChaosOptions.parse("--nemesis", "mixed", "--seconds", "45", "--seed", "42",
                "--delivery", "uniform");
        ByteArrayOutputStream report = new ByteArrayOutputStream();
        Verdict v;
        try (PrintStream out = new PrintStream(report, true, StandardCharsets.UTF_8)) {
            v = Chaos.run(o, out, Path.of("target", "chaos-logs"));
        }
        String text = report.toString(StandardCharsets.UTF_8);
        System.out.print(text);
        assertTrue(v.passed(), () -> v.line() + "\n" + text);
        assertTrue(v.line().startsWith("CHAOS verdict=PASS seed=42 nemesis=mixed"), v::line);
    }
}
