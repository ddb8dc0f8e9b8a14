package org.fts.loadtest.campaign;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * The calls of one Grinder run, read from every worker's data log ({@code *-data.log}: {@code Thread, Run,
 * Test, Start time (ms since Epoch), Test time, Errors}, millisecond resolution). Test 1 is warm-up, 2 the
 * measured phase, 3 the tail (see hello.py).
 *
 * @param measuredTimes  the measured calls' durations (ms), sorted
 * @param measuredStart  the first measured call's start (ms since the epoch)
 * @param measuredEnd    the last measured call's end
 * @param ends           every successful call's end (ms since the epoch), any phase, sorted
 * @param errors         failed calls, any phase
 */
record DataLog(long[] measuredTimes, long measuredStart, long measuredEnd, long[] ends, long errors) {
    static final int MEASURED = 2;

    static DataLog read(Path logDir) throws IOException {
        LongList measured = new LongList();
        LongList ends = new LongList();
        long start = Long.MAX_VALUE;
        long end = Long.MIN_VALUE;
        long errors = 0;
        try (DirectoryStream<Path> files = Files.newDirectoryStream(logDir, "*-data.log")) {
            for (Path file : files) {
                try (BufferedReader in = Files.newBufferedReader(file)) {
                    Columns c = Columns.of(in.readLine(), file);
                    for (String line = in.readLine(); line != null; line = in.readLine()) {
                        String[] f = line.split(",\\s*");
                        if (f.length <= c.max) {
                            continue;   // a line cut short by a killed worker
                        }
                        long t0 = Long.parseLong(f[c.start].trim());
                        long took = Long.parseLong(f[c.time].trim());
                        if (Long.parseLong(f[c.errors].trim()) != 0) {
                            errors++;
                            continue;
                        }
                        ends.add(t0 + took);
                        if (Integer.parseInt(f[c.test].trim()) == MEASURED) {
                            measured.add(took);
                            start = Math.min(start, t0);
                            end = Math.max(end, t0 + took);
                        }
                    }
                }
            }
        }
        long[] times = measured.toArray();
        Arrays.sort(times);
        long[] e = ends.toArray();
        Arrays.sort(e);
        return new DataLog(times, start, end, e, errors);
    }

    long measuredCalls() {
        return measuredTimes.length;
    }

    /**
     * Calls per second completed in the measured window (first measured call's start to the last one's end),
     * whatever their phase: clients that finish their measured calls early go on with tail calls, and the
     * server's load stays at its peak for the whole window, as in the paper.
     */
    double throughput() {
        long window = measuredEnd - measuredStart;
        return measuredTimes.length == 0 || window <= 0 ? 0
                : callsEndedBetween(measuredStart, measuredEnd) * 1000.0 / window;
    }

    double meanMillis() {
        return measuredTimes.length == 0 ? 0 : Arrays.stream(measuredTimes).average().orElse(0);
    }

    /** The measured durations' {@code q} quantile (nearest rank), ms. */
    double percentileMillis(double q) {
        if (measuredTimes.length == 0) {
            return 0;
        }
        int rank = (int) Math.ceil(q * measuredTimes.length);
        return measuredTimes[Math.max(0, Math.min(measuredTimes.length - 1, rank - 1))];
    }

    /** Successful calls (any phase) that ended in {@code [from, to]} (ms since the epoch). */
    long callsEndedBetween(long from, long to) {
        int lo = lowerBound(ends, from);
        int hi = lowerBound(ends, to + 1);
        return hi - lo;
    }

    private static int lowerBound(long[] a, long key) {
        int i = Arrays.binarySearch(a, key);
        if (i < 0) {
            return -i - 1;
        }
        while (i > 0 && a[i - 1] == key) {
            i--;
        }
        return i;
    }

    private record Columns(int test, int start, int time, int errors, int max) {
        static Columns of(String header, Path file) throws IOException {
            if (header == null) {
                throw new IOException("empty Grinder data log " + file);
            }
            List<String> names = Arrays.stream(header.split(",")).map(String::trim).toList();
            int test = names.indexOf("Test");
            int start = names.indexOf("Start time (ms since Epoch)");
            int time = names.indexOf("Test time");
            int errors = names.indexOf("Errors");
            if (test < 0 || start < 0 || time < 0 || errors < 0) {
                throw new IOException("unexpected Grinder data log header in " + file + ": " + header);
            }
            return new Columns(test, start, time, errors, Math.max(Math.max(test, start), Math.max(time, errors)));
        }
    }

    /** A growable long array (data logs run to millions of lines). */
    private static final class LongList {
        private long[] a = new long[1024];
        private int n;

        void add(long v) {
            if (n == a.length) {
                a = Arrays.copyOf(a, n * 2);
            }
            a[n++] = v;
        }

        long[] toArray() {
            return Arrays.copyOf(a, n);
        }
    }
}
