package org.fts.loadtest.load;

import java.util.Locale;

import org.HdrHistogram.Histogram;

/**
 * One measured point of {@code bin/fts load}: a target at a connection count, in one mode, in one run. Latencies
 * in microseconds; CPU per call is CPU time over the window divided by the calls that ended in it (the servers'
 * summed over their processes; {@code replicaCpu}, each server process's, "a/b/c" in the target's order, when it
 * has several); {@code wakeups}, each server process's thread wake-ups per call
 * ({@link ProcessCpu#wakeupsByThread}), "a/b/c" likewise, for one server too: the CPU of a lone call follows them
 * (docs/performance.md).
 */
record Measurement(String target, int connections, String mode, int run, double offeredRate, double callsPerSecond,
                   double meanUs, double p50Us, double p99Us, double p999Us, double maxUs, double serverCpuUsPerCall,
                   double driverCpuUsPerCall, long errors, int deadConnections, long lateSends, String replicaCpu,
                   String wakeups) {

    /** Without the per-replica CPU (one server process, or none measured). */
    Measurement(String target, int connections, String mode, int run, double offeredRate, double callsPerSecond,
                double meanUs, double p50Us, double p99Us, double p999Us, double maxUs, double serverCpuUsPerCall,
                double driverCpuUsPerCall, long errors, int deadConnections, long lateSends) {
        this(target, connections, mode, run, offeredRate, callsPerSecond, meanUs, p50Us, p99Us, p999Us, maxUs,
                serverCpuUsPerCall, driverCpuUsPerCall, errors, deadConnections, lateSends, "", "");
    }

    /** The bound on the driver's own CPU per call: above it, the figures measure the driver. */
    static final double DRIVER_CPU_BUDGET_US = 30;

    static final String HEADER = "target,connections,mode,run,offered_rate,calls_per_s,mean_us,p50_us,p99_us,"
            + "p999_us,max_us,server_cpu_us_per_call,driver_cpu_us_per_call,errors,dead_connections,late_sends,"
            + "replica_cpu_us_per_call,server_wakeups_per_call";

    static Measurement of(String target, int connections, LoadRun.Mode mode, int run, double offeredRate,
                          LoadRun.Outcome o, long serverCpuMicros, long driverCpuNanos, long[] perServerMicros,
                          long[] perServerWakeups) {
        Histogram h = o.latencyUs();
        long calls = o.endedInWindow();
        StringBuilder replicas = new StringBuilder();
        for (int i = 0; perServerMicros.length > 1 && i < perServerMicros.length; i++) {
            replicas.append(i == 0 ? "" : "/").append(String.format(Locale.ROOT, "%.1f",
                    calls == 0 ? 0 : (double) perServerMicros[i] / calls));
        }
        StringBuilder wakeups = new StringBuilder();
        for (int i = 0; i < perServerWakeups.length; i++) {
            wakeups.append(i == 0 ? "" : "/").append(String.format(Locale.ROOT, "%.2f",
                    calls == 0 ? 0 : (double) perServerWakeups[i] / calls));
        }
        return new Measurement(target, connections, mode.label(), run, offeredRate, o.callsPerSecond(),
                h.getTotalCount() == 0 ? 0 : h.getMean(), h.getValueAtPercentile(50), h.getValueAtPercentile(99),
                h.getValueAtPercentile(99.9), h.getMaxValue(), calls == 0 ? 0 : (double) serverCpuMicros / calls,
                calls == 0 ? 0 : driverCpuNanos / 1e3 / calls, o.errors(), o.deadConnections(), o.lateSends(),
                replicas.toString(), wakeups.toString());
    }

    boolean closed() {
        return mode.equals("closed");
    }

    /** The grep-able line printed for every point. */
    String line() {
        return String.format(Locale.ROOT, "load target=%s connections=%d mode=%s run=%d%s calls_per_s=%.0f mean_us=%.0f"
                        + " p50_us=%.0f p99_us=%.0f p999_us=%.0f max_us=%.0f server_cpu_us_per_call=%.1f"
                        + " driver_cpu_us_per_call=%.1f errors=%d%s%s%s%s", target, connections, mode, run,
                closed() ? "" : String.format(Locale.ROOT, " offered_per_s=%.0f", offeredRate), callsPerSecond, meanUs,
                p50Us, p99Us, p999Us, maxUs, serverCpuUsPerCall, driverCpuUsPerCall, errors,
                deadConnections == 0 ? "" : " dead_connections=" + deadConnections,
                lateSends == 0 ? "" : " late_sends=" + lateSends,
                replicaCpu.isEmpty() ? "" : " replica_cpu_us_per_call=" + replicaCpu,
                wakeups.isEmpty() ? "" : " server_wakeups_per_call=" + wakeups);
    }

    String csv() {
        return String.format(Locale.ROOT, "%s,%d,%s,%d,%.0f,%.1f,%.1f,%.0f,%.0f,%.0f,%.0f,%.2f,%.2f,%d,%d,%d,%s,%s",
                target, connections, mode, run, offeredRate, callsPerSecond, meanUs, p50Us, p99Us, p999Us, maxUs,
                serverCpuUsPerCall, driverCpuUsPerCall, errors, deadConnections, lateSends, replicaCpu, wakeups);
    }

    static Measurement parse(String line) {
        String[] f = line.split(",", -1);
        return new Measurement(f[0], Integer.parseInt(f[1]), f[2], Integer.parseInt(f[3]), d(f[4]), d(f[5]), d(f[6]),
                d(f[7]), d(f[8]), d(f[9]), d(f[10]), d(f[11]), d(f[12]), Long.parseLong(f[13]), Integer.parseInt(f[14]),
                Long.parseLong(f[15]), f.length > 16 ? f[16] : "", f.length > 17 ? f[17] : "");
    }

    private static double d(String s) {
        return Double.parseDouble(s);
    }
}
