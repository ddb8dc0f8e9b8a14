package org.fts.loadtest.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import fts_samples.Counter;
import fts_samples.CounterHelper;
import org.fts.samples.Clients;
import org.fts.testkit.ReplicaCluster;
import org.omg.CORBA.ORB;

/**
 * {@code bin/fts bench state}: the cost of a state transfer. Three replica processes hold M megabytes of state
 * (the {@code hello} object's string, {@code --ballast-mb}) while FT clients increment the counter; r2 is
 * killed with SIGKILL and restarted; it fetches the whole state at a cut of the order while the traffic
 * goes on. Prints one line per size: {@code state-bench mb=8 state_bytes=... snapshot_ms=... send_ms=...
 * restart_ms=... ops_per_s_before=... ops_per_s_during=... ops_per_s_after=...}: the snapshot time is the
 * provider's pause in execution; {@code during} is the survivors' throughput from the restart until r2 serves.
 *
 * <p>Options: {@code --mb 1,8,32}, {@code --clients 10}, {@code --seconds S} of traffic before and after.
 */
public final class StateBench {
    private static final Pattern GAVE = Pattern.compile(
            "gave its state to \\S+: (\\d+) bytes, snapshot (\\d+) ms \\(execution paused\\), sent in (\\d+) ms");

    private StateBench() {
    }

    public static void main(String[] args) throws Exception {
        List<Integer> sizes = List.of(1, 8, 32);
        int clients = 10;
        int seconds = 4;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--mb" -> sizes = java.util.Arrays.stream(args[++i].split(",")).map(Integer::valueOf).toList();
                case "--clients" -> clients = Integer.parseInt(args[++i]);
                case "--seconds" -> seconds = Integer.parseInt(args[++i]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]
                        + " (use --mb 1,8,32, --clients N, --seconds S)");
            }
        }
        Path logs = Path.of("target", "bench-logs");
        for (int mb : sizes) {
            String group = "state-" + UUID.randomUUID().toString().substring(0, 6);
            try (ReplicaCluster cluster = new ReplicaCluster(group, 3, false, List.of("-Xmx1g"),
                    List.of("--ballast-mb", Integer.toString(mb)), logs)) {
                ORB orb = ORB.init(new String[0], Clients.ftDefaults());
                AtomicLong calls = new AtomicLong();
                AtomicBoolean stop = new AtomicBoolean();
                List<Thread> threads = new ArrayList<>();
                String ref = cluster.reference("counter");
                for (int c = 0; c < clients; c++) {
                    Counter counter = CounterHelper.narrow(orb.string_to_object(ref));
                    Thread t = new Thread(() -> {
                        while (!stop.get()) {
                            counter.increment();
                            calls.incrementAndGet();
                        }
                    }, "state-bench-" + c);
                    t.setDaemon(true);
                    threads.add(t);
                    t.start();
                }
                try {
                    Thread.sleep(2000);   // warm-up
                    double before = rate(calls, seconds * 1000L);
                    cluster.kill(2);
                    Thread.sleep(1000);
                    long c0 = calls.get();
                    long t0 = System.nanoTime();
                    cluster.restart(2, List.of());
                    long restartNanos = System.nanoTime() - t0;
                    double during = (calls.get() - c0) / (restartNanos / 1e9);
                    double after = rate(calls, seconds * 1000L);
                    Matcher m = GAVE.matcher(Files.readString(logs.resolve(group + "-r0.err"))
                            + Files.readString(logs.resolve(group + "-r1.err")));
                    String gave = "state_bytes=? snapshot_ms=? send_ms=?";
                    while (m.find()) {
                        gave = "state_bytes=" + m.group(1) + " snapshot_ms=" + m.group(2) + " send_ms=" + m.group(3);
                    }
                    System.out.printf(Locale.ROOT, "state-bench mb=%d %s restart_ms=%.0f ops_per_s_before=%.0f "
                            + "ops_per_s_during=%.0f ops_per_s_after=%.0f%n", mb, gave, restartNanos / 1e6, before,
                            during, after);
                } finally {
                    stop.set(true);
                    for (Thread t : threads) {
                        t.join(30_000);
                    }
                    orb.shutdown(false);
                }
            }
        }
    }

    private static double rate(AtomicLong calls, long millis) throws InterruptedException {
        long c0 = calls.get();
        long t0 = System.nanoTime();
        Thread.sleep(millis);
        return (calls.get() - c0) / ((System.nanoTime() - t0) / 1e9);
    }
}
