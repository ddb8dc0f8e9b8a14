package org.fts.loadtest.bench;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import org.fts.gc.GroupChannel;
import org.fts.gc.GroupChannels;
import org.fts.gc.GroupListener;
import org.fts.gc.MemberId;
import org.fts.gc.View;

/**
 * {@code bin/fts bench gc}: raw group-communication figures per binding, 3 members (--members) in this JVM, 100-byte
 * payloads. For 1 and 3 concurrent senders it prints the ABCAST throughput (messages/s delivered per
 * member, every sender sending flat out) and the synchronous latency (send, wait for the own delivery),
 * ending with one grep-able line per binding and sender count:
 * {@code gc-bench binding=jgroups-udp delivery=default members=3 senders=3 msgs_per_s=... p50_us=... p99_us=... lead=...
 * bytes_share=.../.../... lead_bytes_ratio=... cpu_share=... lead_cpu_ratio=...}: each member's share of the
 * throughput run's sent bytes and CPU, and the ordering member's (sequencer, raft leader) against the others'
 * mean ({@link MemberShares}).
 *
 * <p>Options: {@code --binding local|jgroups-udp|jgroups-tcp|raft-udp|raft-tcp|all} (default all: raft on udp), {@code --messages N}
 * per throughput run (default 200000), {@code --roundtrips N} per sender (default 5000), {@code --members N} (default
 * 3; with 5 or more, 1, 3 and 5 senders), {@code --binding jgroups-tcp+offload} for leader offload (a comma list runs
 * several bindings in one run), {@code --stack XML}
 * to measure a JGroups stack file of one's own, {@code --delivery agreed|uniform} (default: fts.delivery's).
 */
public final class GcBench {
    /** Most members a run may have (the waiter slots per member). */
    private static final int MAX_MEMBERS = 16;
    private static final int PAYLOAD = 100;
    private static final long TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(120);

    private final String binding;
    private final int members;
    private final int messages;
    private final int roundtrips;
    private final String stack;
    private String delivery;   // null: the default (fts.delivery)

    GcBench(String binding, int members, int messages, int roundtrips, String stack) {
        this.binding = binding;
        this.members = members;
        this.messages = messages;
        this.roundtrips = roundtrips;
        this.stack = stack;
    }

    public static void main(String[] args) throws Exception {
        String which = "all";
        int messages = 200_000;
        int roundtrips = 5_000;
        String stack = null;
        String delivery = null;
        int members = 3;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--binding" -> which = args[++i];
                case "--members" -> members = Integer.parseInt(args[++i]);
                case "--messages" -> messages = Integer.parseInt(args[++i]);
                case "--roundtrips" -> roundtrips = Integer.parseInt(args[++i]);
                case "--stack" -> stack = args[++i];
                case "--delivery" -> delivery = args[++i];
                default -> throw new IllegalArgumentException("unknown option " + args[i]
                        + " (use --binding local|jgroups-udp|jgroups-tcp|raft-udp|raft-tcp|all, --messages N, --roundtrips N, --stack XML,"
                        + " --delivery agreed|uniform, --members N)");
            }
        }
        if (members < 1 || members > MAX_MEMBERS) {
            throw new IllegalArgumentException("--members must be 1.." + MAX_MEMBERS);
        }
        List<String> bindings = which.equals("all") ? List.of("local", "jgroups-udp", "jgroups-tcp", "raft-udp")
                : List.of(which.split(","));
        System.out.printf("gc bench: %d members in one JVM, %d-byte payloads, %d messages per throughput run, "
                + "%d round trips per sender; %d cores, %s%n", members, PAYLOAD, messages, roundtrips,
                Runtime.getRuntime().availableProcessors(), System.getProperty("java.vm.name") + " "
                        + System.getProperty("java.version"));
        List<String> summary = new ArrayList<>();
        for (String b : bindings) {
            GcBench bench = new GcBench(b, members, messages, roundtrips, stack);
            bench.delivery = delivery;
            summary.addAll(bench.run());
        }
        summary.forEach(System.out::println);
    }

    /**
     * A binding's configuration; a {@code jgroups-*} binding with {@code +offload} (e.g. {@code jgroups-tcp+offload})
     * orders by leader offload.
     */
    static Properties config(String binding) {
        Properties p = new Properties();
        if (binding.endsWith("+offload") && binding.startsWith("jgroups-")) {
            p.setProperty("fts.gc.jgroups.ordering", "offload");
            binding = binding.substring(0, binding.length() - "+offload".length());
        }
        switch (binding) {
            case "local" -> {
                p.setProperty("fts.gc", "local");
                p.setProperty("fts.gc.local.network", "bench-" + UUID.randomUUID());
            }
            case "jgroups-udp", "jgroups-tcp" -> {
                p.setProperty("fts.gc", "jgroups");
                p.setProperty("fts.jgroups.stack", binding.substring("jgroups-".length()));
            }
            case "raft-udp", "raft-tcp" -> {   // jgroups-raft on the same stacks, its log in a temporary directory
                p.setProperty("fts.gc", "raft");
                p.setProperty("fts.jgroups.stack", binding.substring("raft-".length()));
                p.setProperty("fts.gc.raft.members", "bench-0,bench-1,bench-2");   // the bench's first three
                try {
                    p.setProperty("fts.durability.dir", java.nio.file.Files.createTempDirectory("fts-gc-bench-")
                            .toString());
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }
            default -> throw new IllegalArgumentException("unknown binding " + binding);
        }
        return p;
    }

    /** A member that counts deliveries and wakes the sender thread waiting for its own message. */
    private static final class Counter implements GroupListener {
        final AtomicLong delivered = new AtomicLong();
        final Thread[] waiters = new Thread[MAX_MEMBERS * 4];
        final long[] seen = new long[MAX_MEMBERS * 4];
        volatile int viewSize;
        /** The sequencer (raft: the leader) of the latest epoch. */
        volatile MemberId orderer;
        MemberId self;

        @Override
        public void epochOpened(org.fts.gc.Epoch epoch) {
            orderer = epoch.sequencer();
        }

        @Override
        public void deliver(MemberId sender, byte[] payload) {
            delivered.incrementAndGet();
            if (sender.equals(self)) {
                ByteBuffer b = ByteBuffer.wrap(payload);
                int thread = b.getInt();
                long seq = b.getLong();
                synchronized (this) {
                    seen[thread] = seq;
                }
                Thread t = waiters[thread];
                if (t != null) {
                    LockSupport.unpark(t);
                }
            }
        }

        synchronized long seen(int thread) {
            return seen[thread];
        }

        @Override
        public void viewAccepted(View view) {
            viewSize = view.size();
        }
    }

    List<String> run() throws Exception {
        String group = "gc-bench-" + UUID.randomUUID().toString().substring(0, 8);
        Properties cfg = config(binding);
        if (stack != null && binding.startsWith("jgroups")) {
            cfg.setProperty("fts.jgroups.stack", stack);
        }
        if (delivery != null) {
            cfg.setProperty("fts.delivery", delivery);
        }
        List<GroupChannel> channels = new ArrayList<>();
        List<Counter> counters = new ArrayList<>();
        List<String> lines = new ArrayList<>();
        try {
            for (int i = 0; i < members; i++) {
                Counter c = new Counter();
                GroupChannel ch = GroupChannels.create(cfg, "bench-" + i);
                c.self = ch.self();
                ch.join(group, c);
                channels.add(ch);
                counters.add(c);
            }
            awaitUntil(() -> counters.stream().allMatch(c -> c.viewSize == members), "a full view");
            throughput(channels, counters, 1, Math.max(1, messages / 4));   // warm-up, not reported
            latency(channels, counters, 1, Math.max(1, roundtrips / 4));
            List<String> names = channels.stream().map(c -> c.self().name()).toList();
            for (int senders : members >= 5 ? new int[] {1, 3, 5} : new int[] {1, Math.min(3, members)}) {
                MemberShares.Sample before = MemberShares.take(channels);
                double rate = throughput(channels, counters, senders, messages);
                MemberShares.Sample after = MemberShares.take(channels);
                MemberId orderer = counters.get(0).orderer;
                int lead = orderer == null ? -1 : names.indexOf(orderer.name());
                long[] lat = latency(channels, counters, senders, roundtrips);
                String line = String.format(Locale.ROOT,
                        "gc-bench binding=%s delivery=%s members=%d senders=%d msgs_per_s=%.0f p50_us=%d p99_us=%d %s",
                        binding, cfg.getProperty("fts.delivery", "default"), members, senders, rate, lat[0], lat[1],
                        MemberShares.describe(before, after, lead, names));
                System.out.println(line);
                lines.add(line);
            }
        } finally {
            for (int i = channels.size() - 1; i >= 0; i--) {
                channels.get(i).close();
            }
        }
        return lines;
    }

    /** Every sender sends flat out; returns messages delivered per second per member. */
    private double throughput(List<GroupChannel> channels, List<Counter> counters, int senders, int total)
            throws InterruptedException {
        long[] before = counters.stream().mapToLong(c -> c.delivered.get()).toArray();
        int perSender = total / senders;
        long expected = (long) perSender * senders;
        long start = System.nanoTime();
        List<Thread> threads = new ArrayList<>();
        for (int s = 0; s < senders; s++) {
            GroupChannel ch = channels.get(s % members);
            int thread = s;
            Thread t = new Thread(() -> {
                for (int i = 0; i < perSender; i++) {
                    ch.abcast(payload(thread, -1));
                }
            }, "bench-send-" + s);
            threads.add(t);
            t.start();
        }
        for (Thread t : threads) {
            t.join();
        }
        awaitUntil(() -> {
            for (int i = 0; i < members; i++) {
                if (counters.get(i).delivered.get() - before[i] < expected) {
                    return false;
                }
            }
            return true;
        }, "all " + expected + " messages delivered at every member");
        double secs = (System.nanoTime() - start) / 1e9;
        return expected / secs;
    }

    /** Each sender (on its own member) broadcasts and waits for its own delivery; returns p50, p99 in us. */
    private long[] latency(List<GroupChannel> channels, List<Counter> counters, int senders, int n)
            throws InterruptedException {
        long[][] samples = new long[senders][n];
        List<Thread> threads = new ArrayList<>();
        for (int s = 0; s < senders; s++) {
            int member = s % members;
            int thread = s + MAX_MEMBERS;   // distinct waiter slots from the throughput senders
            GroupChannel ch = channels.get(member);
            Counter c = counters.get(member);
            long[] mine = samples[s];
            Thread t = new Thread(() -> {
                c.waiters[thread] = Thread.currentThread();
                long base = c.seen(thread);
                for (int i = 0; i < n; i++) {
                    long seq = base + i + 1;
                    long t0 = System.nanoTime();
                    ch.abcast(payload(thread, seq));
                    while (c.seen(thread) < seq) {
                        LockSupport.parkNanos(100_000);
                        if (System.nanoTime() - t0 > TIMEOUT_NANOS) {
                            throw new IllegalStateException("no own delivery within 120 s");
                        }
                    }
                    mine[i] = System.nanoTime() - t0;
                }
                c.waiters[thread] = null;
            }, "bench-rtt-" + s);
            threads.add(t);
            t.start();
        }
        for (Thread t : threads) {
            t.join();
        }
        long[] all = Arrays.stream(samples).flatMapToLong(Arrays::stream).sorted().toArray();
        return new long[] {all[all.length / 2] / 1000, all[(int) Math.min(all.length - 1, all.length * 0.99)] / 1000};
    }

    private static byte[] payload(int thread, long seq) {
        ByteBuffer b = ByteBuffer.allocate(PAYLOAD);
        b.putInt(thread).putLong(seq);
        return b.array();
    }

    private static void awaitUntil(java.util.function.BooleanSupplier done, String what) {
        // re-checked every 200 us at most: the wait ends a timed run
        if (org.fts.process.Waits.until(done, java.time.Duration.ofNanos(TIMEOUT_NANOS),
                java.time.Duration.ofNanos(200_000)) < 0) {
            throw new IllegalStateException("gc bench: gave up waiting for " + what);
        }
    }
}
