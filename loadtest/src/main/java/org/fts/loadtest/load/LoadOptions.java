package org.fts.loadtest.load;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The options of {@code bin/fts load}, parsed and checked; a bad one is an {@link IllegalArgumentException}
 * naming it. See {@link LoadMain} for what each does.
 */
record LoadOptions(List<String> targets, List<Integer> connections, List<LoadRun.Mode> modes, String rate,
                   Duration warmup, Duration measure, Duration drain, int runs, boolean ft, String attach,
                   int ioThreads, int maxInFlight, String call, String ior, List<Long> pids, List<String> serverOpts,
                   Path out, Path docs, Duration serverWarmup, double cap, int callers) {

    static final String USAGE = "bin/fts load [--targets plain,fts,nb,atab,...] [--connections 1,50]"
            + " [--mode closed|open|closed,open] [--rate CALLS_PER_S|P%] [--seconds S] [--warmup S] [--runs N]"
            + " [--ft] [--attach spread|first] [--callers N] [--io-threads N] [--max-in-flight N] [--call set|increment|get|mix]"
            + " [--server-warmup S] [--cap CORES] [--ior IOR|@FILE [--pids P,Q]] [--out DIR] [--docs FILE]"
            + " [-Dfts.key=value ...]";

    /** {@code --call mix}: HelloObj, every {@link #MIX_WRITE_EVERY}th call of a connection a set, the others gets. */
    static final String MIX = "mix";
    static final int MIX_WRITE_EVERY = 10;

    static LoadOptions parse(String[] args) {
        List<String> targets = List.of("plain", "fts");
        List<Integer> connections = List.of(1, 50);
        List<LoadRun.Mode> modes = List.of(LoadRun.Mode.CLOSED);
        String rate = null;
        Duration warmup = Duration.ofSeconds(2);
        Duration measure = Duration.ofSeconds(5);
        int runs = 1;
        boolean ft = false;
        String attach = "spread";
        int ioThreads = 1;
        int maxInFlight = 64;
        String call = "set";
        String ior = null;
        List<Long> pids = List.of();
        List<String> serverOpts = new ArrayList<>();
        Path out = Path.of("target", "load");
        Path docs = null;
        Duration serverWarmup = Duration.ofSeconds(30);
        double cap = 0;
        int callers = 1;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.startsWith("-D")) {
                serverOpts.add(a);
                continue;
            }
            if (i + 1 >= args.length && !a.equals("--ft")) {
                throw new IllegalArgumentException(a + " needs a value (" + USAGE + ")");
            }
            switch (a) {
                case "--targets" -> targets = list(args[++i]);
                case "--connections" -> connections = ints(a, args[++i]);
                case "--mode" -> modes = list(args[++i]).stream().map(LoadRun.Mode::of).toList();
                case "--rate" -> rate = args[++i];
                case "--seconds" -> measure = seconds(a, args[++i]);
                case "--warmup" -> warmup = seconds(a, args[++i]);
                case "--runs" -> runs = ints(a, args[++i]).get(0);
                case "--ft" -> ft = true;
                case "--attach" -> attach = args[++i];
                case "--io-threads" -> ioThreads = ints(a, args[++i]).get(0);
                case "--max-in-flight" -> maxInFlight = ints(a, args[++i]).get(0);
                case "--call" -> call = args[++i];
                case "--ior" -> ior = args[++i];
                case "--pids" -> pids = Arrays.stream(args[++i].split(",")).map(String::trim).map(Long::valueOf).toList();
                case "--out" -> out = Path.of(args[++i]);
                case "--docs" -> docs = Path.of(args[++i]);
                case "--server-warmup" -> serverWarmup = seconds(a, args[++i]);
                case "--cap" -> cap = Double.parseDouble(args[++i]);
                case "--callers" -> callers = ints(a, args[++i]).get(0);
                default -> throw new IllegalArgumentException("unknown option " + a + " (" + USAGE + ")");
            }
        }
        if (!attach.equals("spread") && !attach.equals("first")) {
            throw new IllegalArgumentException("--attach " + attach + ": spread or first");
        }
        if (!List.of("set", "increment", "get", MIX).contains(call)) {
            throw new IllegalArgumentException("--call " + call + ": set or get (HelloObj), increment (Counter), or "
                    + "mix (HelloObj: 90% get, 10% set)");
        }
        if (modes.contains(LoadRun.Mode.OPEN) && rate == null) {
            throw new IllegalArgumentException("--mode open needs --rate (calls/s, or P% of the first target's"
                    + " closed-loop rate measured in the same run)");
        }
        if (rate != null && rate.endsWith("%") && !modes.contains(LoadRun.Mode.CLOSED)) {
            throw new IllegalArgumentException("--rate " + rate + " is relative to a closed-loop run: add --mode"
                    + " closed,open");
        }
        if (rate != null) {
            double r = rateValue(rate);
            if (!(r > 0)) {
                throw new IllegalArgumentException("--rate " + rate + ": above 0");
            }
        }
        if (ior != null) {
            targets = List.of("attached");
            if (ior.startsWith("@")) {
                try {
                    ior = Files.readString(Path.of(ior.substring(1))).trim();
                } catch (java.io.IOException e) {
                    throw new IllegalArgumentException("--ior " + ior + ": " + e.getMessage());
                }
            }
        } else if (!pids.isEmpty()) {
            throw new IllegalArgumentException("--pids goes with --ior (servers the driver did not start)");
        }
        if (cap != 0 && (!(cap > 0) || cap > 64 || ior != null)) {
            throw new IllegalArgumentException("--cap " + cap + ": a share of a core above 0, for servers the driver "
                    + "starts (not with --ior)");
        }
        if (cap != 0 && CpuCap.unavailable() != null) {
            throw new IllegalArgumentException(CpuCap.unavailable());
        }
        if (callers < 1 || callers > LoadConnection.MAX_IN_FLIGHT) {
            throw new IllegalArgumentException("--callers " + callers + ": 1 to " + LoadConnection.MAX_IN_FLIGHT
                    + " calls in flight per connection in a closed loop");
        }
        if (maxInFlight > LoadConnection.MAX_IN_FLIGHT) {
            throw new IllegalArgumentException("--max-in-flight at most " + LoadConnection.MAX_IN_FLIGHT);
        }
        return new LoadOptions(targets, connections, modes, rate, warmup, measure, Duration.ofSeconds(10), runs, ft,
                attach, ioThreads, maxInFlight, call, ior, pids, List.copyOf(serverOpts), out, docs, serverWarmup,
                cap, callers);
    }

    /** The open loop's rate: absolute calls/s, or (with %) the fraction of a closed-loop rate. */
    static double rateValue(String rate) {
        try {
            return rate.endsWith("%") ? Double.parseDouble(rate.substring(0, rate.length() - 1)) / 100
                    : Double.parseDouble(rate);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--rate " + rate + ": calls per second, or a percentage like 50%");
        }
    }

    boolean relativeRate() {
        return rate != null && rate.endsWith("%");
    }

    int maxConnections() {
        return connections.stream().mapToInt(Integer::intValue).max().orElse(1);
    }

    private static List<String> list(String s) {
        return Arrays.stream(s.split(",")).map(String::trim).filter(x -> !x.isEmpty()).toList();
    }

    private static List<Integer> ints(String option, String s) {
        try {
            List<Integer> v = list(s).stream().map(Integer::valueOf).toList();
            if (v.isEmpty() || v.stream().anyMatch(x -> x < 1)) {
                throw new NumberFormatException();
            }
            return v;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " " + s + ": positive integers");
        }
    }

    private static Duration seconds(String option, String s) {
        try {
            double v = Double.parseDouble(s);
            if (v < 0) {
                throw new NumberFormatException();
            }
            return Duration.ofMillis(Math.round(v * 1000));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " " + s + ": seconds, 0 or more");
        }
    }
}
