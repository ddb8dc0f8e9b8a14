package org.fts.loadtest.bench;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

import org.fts.batching.BatchCodec;
import org.fts.batching.BatchPolicy;
import org.fts.batching.BatchStats;
import org.fts.batching.Batcher;
import org.fts.batching.BatchingConfig;
import org.fts.batching.Clock;
import org.fts.gc.GroupChannel;
import org.fts.gc.GroupChannels;
import org.fts.gc.GroupListener;
import org.fts.gc.MemberId;
import org.fts.gc.View;

/**
 * {@code bin/fts bench batching}: the batching layer alone, over the in-JVM group binding (3 members, no ORB).
 * T closed-loop threads on one member each cast a 280-byte message (the paper's serialized set() request) and
 * wait until it is delivered back, like a client waiting for its reply. Per policy and T it prints
 * {@code batch-bench policy=tab T=200 ops_per_s=... batch_mean=... cast_p50_us=... cast_p99_us=...
 * batching_delay_mean_us=...}.
 *
 * <p>Options: {@code --policies nb,cb,tb,ab,tab,pack,natural}, {@code --threads 1,10,50,200,800},
 * {@code --seconds S} per case (default 2).
 */
public final class BatchingBench {
    private BatchingBench() {
    }

    public static void main(String[] args) throws Exception {
        List<String> policies = List.of("nb", "cb", "tb", "ab", "tab", "pack", "natural");
        List<Integer> threads = List.of(1, 10, 50, 200, 800);
        double seconds = 2;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--policies" -> policies = List.of(args[++i].split(","));
                case "--threads" -> threads = java.util.Arrays.stream(args[++i].split(",")).map(Integer::valueOf).toList();
                case "--seconds" -> seconds = Double.parseDouble(args[++i]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]
                        + " (use --policies nb,tab,..., --threads 1,10,..., --seconds S)");
            }
        }
        System.out.printf("batching bench: 3 members (in-JVM binding), 280-byte messages, closed loop, %.1f s per case, %d cores%n",
                seconds, Runtime.getRuntime().availableProcessors());
        for (String p : policies) {
            for (int t : threads) {
                System.out.println(run(p, t, seconds));
            }
        }
    }

    /** One case; returns its grep-able line. */
    static String run(String policy, int threads, double seconds) throws Exception {
        Properties cfg = new Properties();
        cfg.setProperty("fts.gc", "local");
        cfg.setProperty("fts.gc.local.network", "batch-bench-" + UUID.randomUUID());
        cfg.setProperty("fts.batching", policy);
        BatchPolicy bp = BatchingConfig.policy(cfg);
        String group = "bench";
        List<GroupChannel> members = new ArrayList<>();
        Thread[] waiters = new Thread[threads];
        java.util.concurrent.atomic.AtomicLongArray delivered = new java.util.concurrent.atomic.AtomicLongArray(threads);
        Batcher[] batcher = new Batcher[1];
        try {
            for (int m = 0; m < 3; m++) {
                GroupChannel ch = GroupChannels.create(cfg, "b" + m);
                boolean origin = m == 0;
                ch.join(group, new GroupListener() {
                    @Override
                    public void deliver(MemberId sender, byte[] payload) {
                        if (!origin || !sender.equals(ch.self())) {
                            return;
                        }
                        batcher[0].ownBatchDelivered();
                        for (byte[] msg : BatchCodec.decode(payload)) {
                            ByteBuffer b = ByteBuffer.wrap(msg);
                            int t = b.getInt();
                            delivered.set(t, b.getLong());
                            LockSupport.unpark(waiters[t]);
                        }
                    }

                    @Override
                    public void viewAccepted(View view) {
                    }
                });
                members.add(ch);
            }
            GroupChannel origin = members.get(0);
            batcher[0] = new Batcher(bp, Clock.SYSTEM, origin::abcast,
                    org.fts.gc.FailStop.threads("fts-batch-timer-bench"));
            LongAdder ops = new LongAdder();
            AtomicBoolean measuring = new AtomicBoolean();
            AtomicBoolean stop = new AtomicBoolean();
            List<Thread> ts = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int id = t;
                Thread th = new Thread(() -> {
                    waiters[id] = Thread.currentThread();
                    for (long seq = 1; !stop.get(); seq++) {
                        byte[] msg = new byte[280];
                        ByteBuffer.wrap(msg).putInt(id).putLong(seq);
                        batcher[0].cast(msg);
                        while (!stop.get() && delivered.get(id) < seq) {
                            LockSupport.parkNanos(100_000_000);   // unparked by the delivery; 100 ms is a safety net
                        }
                        if (measuring.get()) {
                            ops.increment();
                        }
                    }
                }, "bench-" + t);
                ts.add(th);
                th.start();
            }
            Thread.sleep(500);   // warm-up (load pacing, not a test wait)
            measuring.set(true);
            long start = System.nanoTime();
            Thread.sleep((long) (seconds * 1000));
            measuring.set(false);
            double elapsed = (System.nanoTime() - start) / 1e9;
            stop.set(true);
            for (Thread th : ts) {
                LockSupport.unpark(th);
                th.join(10_000);
            }
            BatchStats s = batcher[0].stats();
            return String.format(Locale.ROOT, "batch-bench policy=%s T=%d ops_per_s=%.0f batch_mean=%.2f cast_p50_us=%.0f "
                            + "cast_p99_us=%.0f batching_delay_mean_us=%.1f",
                    bp.describe().replace(' ', '_'), threads, ops.sum() / elapsed, s.getBatchLengthMean(),
                    s.getCastLatencyP50Micros(), s.getCastLatencyP99Micros(), s.getBatchingDelayMeanMicros());
        } finally {
            if (batcher[0] != null) {
                batcher[0].close();
            }
            for (GroupChannel ch : members) {
                ch.close();
            }
        }
    }
}
