package org.fts.loadtest.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;

import org.fts.log.SegmentedLog;

/**
 * {@code bin/fts bench log}: what durability costs on this disk, in one run.
 * <ul>
 *   <li>{@code floor}: a 4 KiB write and {@code fdatasync} of a plain file, one at a time: the physical floor of
 *       one durable acknowledgement;</li>
 *   <li>{@code log}: the replicas' log ({@link SegmentedLog}), records of {@code --bytes} each, synced every
 *       {@code k} records for k in {@code --group 1,10,100}: syncs/s, records/s, p50/p99 of a sync.</li>
 * </ul>
 * Options: {@code --dir target/log-bench} (put it on the disk the replicas will use), {@code --seconds 3} per
 * case, {@code --bytes 1024}, {@code --group 1,10,100}. Prints one line per case.
 */
public final class LogBench {
    private LogBench() {
    }

    public static void main(String[] args) throws IOException {
        Path dir = Path.of("target", "log-bench");
        double seconds = 3;
        int bytes = 1024;
        List<Integer> groups = List.of(1, 10, 100);
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--dir" -> dir = Path.of(args[++i]);
                case "--seconds" -> seconds = Double.parseDouble(args[++i]);
                case "--bytes" -> bytes = Integer.parseInt(args[++i]);
                case "--group" -> groups = Arrays.stream(args[++i].split(",")).map(Integer::valueOf).toList();
                default -> throw new IllegalArgumentException("fts bench log: unknown option " + args[i]);
            }
        }
        Files.createDirectories(dir);
        floor(dir, seconds);
        for (int k : groups) {
            log(dir, seconds, bytes, k);
        }
    }

    /**
     * Measures the floor for {@code seconds} in {@code dir}, prints it, and returns its p50 in nanoseconds
     * ({@code bin/fts load} measures it in the same run as a logging target).
     */
    public static long floor(Path dir, double seconds) throws IOException {
        Files.createDirectories(dir);
        Path f = dir.resolve("floor.dat");
        Files.deleteIfExists(f);
        long[] t = new long[1 << 20];
        int n = 0;
        ByteBuffer b = ByteBuffer.allocate(4096);
        try (FileChannel ch = FileChannel.open(f, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            long end = System.nanoTime() + (long) (seconds * 1e9);
            long pos = 0;
            while (System.nanoTime() < end && n < t.length) {
                long t0 = System.nanoTime();
                b.clear();
                while (b.hasRemaining()) {
                    pos += ch.write(b, pos);
                }
                ch.force(false);
                t[n++] = System.nanoTime() - t0;
            }
        }
        Files.delete(f);
        long[] s = Arrays.copyOf(t, n);
        Arrays.sort(s);
        System.out.printf("log-bench case=floor bytes=4096 syncs=%d syncs_per_s=%.0f p50_us=%d p99_us=%d%n", n,
                n / seconds, s[n / 2] / 1000, s[(int) Math.min(n - 1, Math.ceil(n * 0.99) - 1)] / 1000);
        return s[n / 2];
    }

    private static void log(Path dir, double seconds, int bytes, int group) throws IOException {
        Path d = dir.resolve("log-" + group);
        deleteTree(d);
        byte[] rec = new byte[bytes];
        long records = 0;
        long start = System.nanoTime();
        try (SegmentedLog log = SegmentedLog.open(d, 64L << 20)) {
            long end = start + (long) (seconds * 1e9);
            while (System.nanoTime() < end) {
                for (int i = 0; i < group; i++) {
                    log.append(++records, rec);
                }
                log.sync();
            }
            double took = (System.nanoTime() - start) / 1e9;
            System.out.printf("log-bench case=log bytes=%d group=%d records=%d records_per_s=%.0f syncs_per_s=%.0f "
                            + "records_per_sync=%.1f p50_sync_us=%d p99_sync_us=%d%n", bytes, group, records,
                    records / took, log.stats().syncs() / took, log.stats().recordsPerSync(),
                    log.stats().percentileNanos(50) / 1000, log.stats().percentileNanos(99) / 1000);
        }
        deleteTree(d);
    }

    private static void deleteTree(Path d) throws IOException {
        if (!Files.exists(d)) {
            return;
        }
        try (var s = Files.walk(d)) {
            for (Path p : s.sorted((a, b) -> b.getNameCount() - a.getNameCount()).toList()) {
                Files.delete(p);
            }
        }
    }
}
