package org.fts.order;

import java.util.ArrayList;
import java.util.List;

/**
 * {@code bin/fts simulate}: runs the protocol simulator ({@link ProtocolSimulator}) over a range of seeds and
 * prints progress, seeds per second, and every violation with its seed and schedule; exits 1 on any violation.
 * {@code --replay SEED} runs one seed logging every step and each member's state after it.
 *
 * <pre>
 * bin/fts simulate [--seeds 1000] [--start 1] [--replicas 3|5] [--steps K] [--delivery uniform|agreed] [--faults model|beyond] [--ordering sequencer|offload] [--durability memory|log] [--lease TICKS] [--power-loss on|off] [--replay SEED]
 * </pre>
 */
public final class ProtocolSimulatorMain {
    private ProtocolSimulatorMain() {
    }

    public static void main(String[] args) {
        long seeds = 1000;
        long start = 1;
        int replicas = 3;
        int steps = ProtocolSimulator.DEFAULT_STEPS;
        boolean uniform = true;
        boolean beyond = false;
        Ordering ordering = Ordering.SEQUENCER;
        boolean durable = false;
        boolean reads = true;
        int leaseTicks = 0;
        boolean powerLoss = false;
        int learners = 0;
        Long replay = null;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            String v = i + 1 < args.length ? args[i + 1] : null;
            if (v == null && !a.equals("--help")) {
                usage("missing value for " + a);
            }
            switch (a) {
                case "--seeds" -> seeds = Long.parseLong(v);
                case "--start" -> start = Long.parseLong(v);
                case "--replicas" -> replicas = Integer.parseInt(v);
                case "--steps" -> steps = Integer.parseInt(v);
                case "--delivery" -> uniform = !"agreed".equals(v);
                case "--faults" -> beyond = "beyond".equals(v);
                case "--ordering" -> ordering = Ordering.of(v);
                case "--durability" -> durable = "log".equals(v);
                case "--replay" -> replay = Long.parseLong(v);
                case "--reads" -> reads = !"off".equals(v);
                case "--lease" -> leaseTicks = Integer.parseInt(v);
                case "--power-loss" -> powerLoss = "on".equals(v);
                case "--learners" -> learners = Integer.parseInt(v);
                case "--help" -> usage(null);
                default -> usage("unknown option " + a);
            }
            i++;
        }
        if (replicas < 2 || steps < 0 || seeds < 1) {
            usage("need --replicas >= 2, --steps >= 0, --seeds >= 1");
        }
        ProtocolSimulator.Options options = new ProtocolSimulator.Options(replicas, steps, uniform, beyond, ordering,
                durable, reads && uniform).withLease(leaseTicks);
        if (powerLoss) {
            options = options.withPowerLoss();
        }
        if (learners > 0) {
            options = options.withLearners(learners);
        }
        if (replay != null) {
            ProtocolSimulator.Result r = ProtocolSimulator.replay(replay, options, System.out);
            System.out.println(r.ok() ? r.report() : "seed " + replay + ": VIOLATION of " + r.invariant() + " at step "
                    + r.step() + ": " + r.detail());
            System.exit(r.ok() ? 0 : 1);
        }
        System.out.printf("simulate: seeds %d..%d (%s)%n", start, start + seeds - 1, options.describe());
        List<Long> failed = new ArrayList<>();
        long deliveries = 0;
        long t0 = System.nanoTime();
        long every = Math.max(1, seeds / 10);
        for (long s = start; s < start + seeds; s++) {
            ProtocolSimulator.Result r = ProtocolSimulator.run(s, options);
            deliveries += r.deliveries();
            if (!r.ok()) {
                failed.add(s);
                System.out.println(r.report());
            }
            long done = s - start + 1;
            if (done % every == 0 || done == seeds) {
                double secs = (System.nanoTime() - t0) / 1e9;
                System.out.printf("  %d/%d seeds, %.0f seeds/s, %d violations%n", done, seeds, done / secs, failed.size());
            }
        }
        double secs = (System.nanoTime() - t0) / 1e9;
        System.out.printf("simulate: %d seeds in %.1f s (%.0f seeds/s, %d deliveries checked); %s%n", seeds, secs,
                seeds / secs, deliveries, failed.isEmpty() ? "no violations" : failed.size() + " violations: seeds " + failed);
        System.exit(failed.isEmpty() ? 0 : 1);
    }

    private static void usage(String error) {
        if (error != null) {
            System.err.println("simulate: " + error);
        }
        System.err.println("usage: bin/fts simulate [--seeds N] [--start S] [--replicas 3|5] [--steps K] "
                + "[--delivery uniform|agreed] [--faults model|beyond] [--ordering sequencer|offload] [--durability memory|log] [--reads on|off] [--lease TICKS] [--power-loss on|off] [--learners K] [--replay SEED]");
        System.exit(error == null ? 0 : 2);
    }
}
