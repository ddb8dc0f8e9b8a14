package org.fts.loadtest.load;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import org.HdrHistogram.Histogram;

/**
 * The lean driver as a load generator for other programs (the campaign runner): a closed loop of one connection
 * per client, each calling {@code HelloObj.set()} with 15 characters on its own object, through a warm-up and a
 * measured window whose edges the caller is told of (to sample the servers there).
 */
public final class Lean {
    /**
     * One closed-loop run. Latencies in microseconds, of the calls sent in the window; throughput counts the calls
     * that ended in it; the driver's own CPU per call is this JVM's CPU time over the window.
     */
    public record Result(double callsPerSecond, double meanUs, double p50Us, double p99Us, long calls, long errors,
                         double driverCpuUsPerCall) {
    }

    private Lean() {
    }

    /**
     * Runs {@code references.size()} clients, client {@code i} on {@code references.get(i)} (an IOR or IOGR; a
     * group's clients spread over its replicas), and calls {@code opened} and {@code closed} as the measured window
     * opens and closes.
     */
    public static Result closedLoop(List<String> references, Duration warmup, Duration measure, Runnable opened,
                                    Runnable closed) throws Exception {
        Target t = Target.perClient(references, "spread");
        List<LoadConnection> conns = new ArrayList<>();
        long[] self = new long[2];
        try {
            String run = UUID.randomUUID().toString().substring(0, 8);
            for (int i = 0; i < references.size(); i++) {
                conns.add(t.connect(i, "set", false, run));
            }
            LoadRun.Plan plan = new LoadRun.Plan(LoadRun.Mode.CLOSED, 0, warmup, measure, Duration.ofSeconds(10), 1, 1);
            LoadRun.Outcome o = LoadRun.run(conns, plan, new LoadRun.Window() {
                @Override
                public void opened() {
                    self[0] = ProcessCpu.selfNanos();
                    opened.run();
                }

                @Override
                public void closed() {
                    self[1] = ProcessCpu.selfNanos();
                    closed.run();
                }
            });
            Histogram h = o.latencyUs();
            long calls = o.endedInWindow();
            return new Result(o.callsPerSecond(), h.getTotalCount() == 0 ? 0 : h.getMean(), h.getValueAtPercentile(50),
                    h.getValueAtPercentile(99), calls, o.errors(), calls == 0 ? 0 : (self[1] - self[0]) / 1e3 / calls);
        } finally {
            conns.forEach(LoadConnection::close);
        }
    }
}
