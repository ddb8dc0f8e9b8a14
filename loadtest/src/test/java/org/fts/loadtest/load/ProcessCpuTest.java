package org.fts.loadtest.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The wake-up count {@code bin/fts load} reports per server ({@code server_wakeups_per_call}). */
class ProcessCpuTest {
    @Test
    @Timeout(30)
    void aThreadThatParksAndIsWokenCountsOneWakeupEachTime() throws Exception {
        assumeTrue(Files.isDirectory(Path.of("/proc/self/task")), "Linux's /proc");
        long self = ProcessHandle.current().pid();
        int rounds = 200;
        CountDownLatch parked = new CountDownLatch(rounds);
        CountDownLatch release = new CountDownLatch(1);
        Thread sleeper = new Thread(() -> {
            for (int i = 0; i < rounds; i++) {
                LockSupport.parkNanos(200_000);   // a timed block: one voluntary switch each time it sleeps
                parked.countDown();
            }
            try {
                release.await();   // alive until read: an ended thread's switches leave the count
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "process-cpu-test-sleeper");
        long before = ProcessCpu.total(ProcessCpu.wakeupsByThread(self));
        sleeper.start();
        try {
            assertTrue(parked.await(20, TimeUnit.SECONDS), "the sleeper parked " + rounds + " times");
            long after = ProcessCpu.total(ProcessCpu.wakeupsByThread(self));
            assertTrue(after - before >= rounds, "at least one wake-up per park: " + before + " -> " + after);
        } finally {
            release.countDown();
            sleeper.join(10_000);
        }
    }

    @Test
    void threadsAreCountedByKindWithoutTheirNumbering() {
        assertEquals("ucast-receiver", ProcessCpu.threadKind("ucast-receiver-"));   // Linux keeps 15 characters
        assertEquals("jgroups", ProcessCpu.threadKind("jgroups-6,load-"));
        assertEquals("fts-iiop", ProcessCpu.threadKind("fts-iiop-3"));
        assertEquals("main", ProcessCpu.threadKind("main"));
        assertEquals("42", ProcessCpu.threadKind("42"));
        assertEquals("wakeups_per_call_by_thread: fts-iiop=2.00 jgroups=0.50",
                LoadMain.wakeupsLine(java.util.Map.of("jgroups", 500L, "fts-iiop", 2000L, "timer", 49L), 1000));
    }

    @Test
    void aWindowCountsEachLiveThreadSinceItsFirstReadingAndLeavesOutThreadsThatEnded() {
        java.util.Map<String, Long> before = java.util.Map.of("jgroups 11", 900L, "C2 CompilerThre 12", 50L,
                "fts-deliver-r 13", 10L);
        java.util.Map<String, Long> after = java.util.Map.of("C2 CompilerThre 12", 60L, "fts-deliver-r 13", 15L,
                "jgroups 14", 3L);   // jgroups 11 ended (its 900 are not subtracted), jgroups 14 started
        assertEquals(java.util.Map.of("C2 CompilerThre", 10L, "fts-deliver-r", 5L, "jgroups", 3L),
                ProcessCpu.since(before, after));
    }

    @Test
    void aProcessThatIsNotThereHasNoWakeups() {
        assertEquals(java.util.Map.of(), ProcessCpu.wakeupsByThread(Long.MAX_VALUE));
    }
}
