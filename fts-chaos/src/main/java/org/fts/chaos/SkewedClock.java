package org.fts.chaos;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The clock nemesis's hand: a replica's wall clock set off by a fixed number of seconds through libfaketime
 * (Debian's {@code libfaketime}, preloaded into the replica's JVM), as a host whose NTP has not synced yet, or a VM
 * restored from a snapshot.
 *
 * <p>libfaketime shifts the monotonic clock by the same constant: a process cannot tell that from an untouched one
 * (a monotonic clock's origin means nothing; its rate is unchanged). Leaving it unshifted
 * ({@code FAKETIME_DONT_FAKE_MONOTONIC=1}) is worse on a JVM: libfaketime 0.9.10 then turns every timed
 * {@code pthread_cond_timedwait} on the monotonic clock into an immediate timeout, so that {@code LockSupport.parkNanos}
 * returns at once and every timed wait spins (measured: a 100 ms park returned in 7 µs); the replica starved.
 */
final class SkewedClock {
    /** Where Debian and Ubuntu put the library, by architecture. */
    private static final List<String> LIBRARIES = List.of(
            "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1",
            "/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1",
            "/usr/lib/faketime/libfaketime.so.1");

    private SkewedClock() {
    }

    /** The replicas' extra environment: the skewed replica's, or nothing (no skew, or skew 0). */
    static Map<Integer, Map<String, String>> environments(ChaosOptions o) throws NetFilter.Unavailable {
        if (o.skewedReplica() < 0 || o.skew() == 0) {
            return Map.of();
        }
        return Map.of(o.skewedReplica(), Map.of(
                "LD_PRELOAD", library(),
                "FAKETIME", String.format(Locale.ROOT, "%+ds", o.skew()),
                "FAKETIME_DONT_RESET", "1"));
    }

    private static String library() throws NetFilter.Unavailable {
        for (String l : LIBRARIES) {
            if (Files.isReadable(Path.of(l))) {
                return l;
            }
        }
        throw new NetFilter.Unavailable("--nemesis clock needs libfaketime (Debian: apt-get install faketime), "
                + "looked for " + LIBRARIES);
    }
}
