package org.fts.loadtest.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

import org.fts.gc.GroupChannel;
import org.fts.gc.GroupChannels;
import org.fts.gc.GroupListener;
import org.fts.gc.MemberId;
import org.fts.gc.View;
import org.fts.gc.Whiteboard;

/**
 * {@code bin/fts bench whiteboard}: how long a whiteboard entry takes to reach the other members (docs/placement.md),
 * per binding, 3 members in this JVM. Every member publishes a new entry every 50 ms (its value: the publishing
 * instant, on this JVM's clock); each member polls the others' entries every millisecond and takes the time from
 * publication to first sight. Two phases: {@code idle}, no broadcasts (entries go on refresh messages of their own),
 * and {@code busy}, every member broadcasting 100-byte messages flat out (entries ride on the group's messages).
 * One line per binding and phase: {@code whiteboard-bench binding=... phase=... samples=N p50_ms=... p99_ms=...}.
 *
 * <p>Options: {@code --binding} as {@code bin/fts bench gc} (a comma list; default local,jgroups-udp,jgroups-tcp,
 * raft-udp), {@code --seconds S} per phase (default 5).
 */
public final class WhiteboardBench {
    private static final long PUBLISH_MS = 50;

    private WhiteboardBench() {
    }

    public static void main(String[] args) throws Exception {
        String bindings = "local,jgroups-udp,jgroups-tcp,raft-udp";
        int seconds = 5;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--binding" -> bindings = args[++i];
                case "--seconds" -> seconds = Integer.parseInt(args[++i]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]
                        + " (use --binding B[,B...], --seconds S)");
            }
        }
        for (String b : bindings.split(",")) {
            for (String phase : List.of("idle", "busy")) {
                double[] ms = measure(b, phase.equals("busy"), seconds);
                Arrays.sort(ms);
                System.out.printf(Locale.ROOT, "whiteboard-bench binding=%s phase=%s samples=%d p50_ms=%.1f p99_ms=%.1f"
                        + " max_ms=%.1f%n", b, phase, ms.length, pct(ms, 0.5), pct(ms, 0.99),
                        ms.length == 0 ? Double.NaN : ms[ms.length - 1]);
            }
        }
    }

    private static double[] measure(String binding, boolean busy, int seconds) throws Exception {
        String group = "wb-" + java.util.UUID.randomUUID().toString().substring(0, 6);
        List<GroupChannel> members = new ArrayList<>();
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> threads = new ArrayList<>();
        List<Double> samples = new ArrayList<>();
        try {
            java.util.Properties config = GcBench.config(binding);   // one network (local), one log directory (raft)
            for (int i = 0; i < 3; i++) {
                GroupChannel ch = GroupChannels.create(config, "bench-" + i);
                members.add(ch);
                ch.join(group, new GroupListener() {
                    @Override
                    public void deliver(MemberId sender, byte[] payload) {
                    }

                    @Override
                    public void viewAccepted(View view) {
                    }
                });
            }
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (members.stream().anyMatch(m -> m.view() == null || m.view().size() < 3)) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(binding + ": the 3 members did not see each other in 30 s");
                }
                Thread.sleep(10);
            }
            if (busy) {
                for (GroupChannel m : members) {
                    threads.add(start(() -> {
                        byte[] payload = new byte[100];
                        while (!stop.get()) {
                            try {
                                m.abcast(payload);
                            } catch (RuntimeException e) {
                                return;
                            }
                        }
                    }));
                }
            }
            for (GroupChannel m : members) {
                threads.add(start(() -> {
                    for (long k = 1; !stop.get(); k++) {
                        m.whiteboard().publish(k, System.nanoTime());
                        sleep(PUBLISH_MS);
                    }
                }));
            }
            threads.add(start(() -> poll(members, stop, samples)));
            sleep(seconds * 1000L);
        } finally {
            stop.set(true);
            for (Thread t : threads) {
                t.join(10_000);
            }
            members.forEach(GroupChannel::close);
        }
        synchronized (samples) {
            return samples.stream().mapToDouble(Double::doubleValue).toArray();
        }
    }

    /** Every millisecond, each member's view of the others: the first sight of each new version is a sample. */
    private static void poll(List<GroupChannel> members, AtomicBoolean stop, List<Double> samples) {
        Map<String, Long> seen = new HashMap<>();
        long warm = System.nanoTime() + 1_000_000_000L;   // the first second: joining, JIT
        while (!stop.get()) {
            long now = System.nanoTime();
            for (GroupChannel reader : members) {
                for (Map.Entry<MemberId, Whiteboard.Entry> e : reader.whiteboard().entries().entrySet()) {
                    if (e.getKey().equals(reader.self())) {
                        continue;
                    }
                    String key = reader.self() + ">" + e.getKey();
                    Whiteboard.Entry entry = e.getValue();
                    Long before = seen.put(key, entry.version());
                    if (before != null && entry.version() > before && now > warm) {
                        synchronized (samples) {
                            samples.add((now - entry.value(1)) / 1e6);
                        }
                    }
                }
            }
            sleep(1);
        }
    }

    private static Thread start(Runnable r) {
        Thread t = new Thread(r, "wb-bench");
        t.setDaemon(true);
        t.start();
        return t;
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static double pct(double[] sorted, double p) {
        return sorted.length == 0 ? Double.NaN : sorted[Math.min(sorted.length - 1, (int) (p * sorted.length))];
    }
}
