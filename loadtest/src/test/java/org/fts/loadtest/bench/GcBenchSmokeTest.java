package org.fts.loadtest.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

/**
 * Keeps {@code bin/fts bench gc} working: a tiny run on the in-JVM binding prints sane figures, with each member's
 * CPU share and the sequencer (member 0) named as the lead (the in-JVM binding has no transport bytes).
 */
class GcBenchSmokeTest {
    private static final Pattern LINE = Pattern.compile(
            "gc-bench binding=local delivery=default members=3 senders=(\\d) msgs_per_s=(\\d+) p50_us=(\\d+) p99_us=(\\d+)"
                    + " lead=bench-0 cpu_share=\\d+%/\\d+%/\\d+% lead_cpu_ratio=[0-9.]+ unattributed_cpu=\\d+%");

    @Test
    void printsOneGreppableLinePerSenderCount() throws Exception {
        List<String> lines = new GcBench("local", 3, 3_000, 200, null).run();
        assertEquals(2, lines.size(), lines.toString());
        for (String line : lines) {
            Matcher m = LINE.matcher(line);
            assertTrue(m.matches(), line);
            assertTrue(Long.parseLong(m.group(2)) > 0, "throughput above zero: " + line);
            assertTrue(Long.parseLong(m.group(3)) <= Long.parseLong(m.group(4)), "p50 <= p99: " + line);
        }
    }
}
