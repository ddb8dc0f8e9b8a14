package org.fts.loadtest.chaos;

import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;

/**
 * The options of {@code bin/fts chaos}, with their defaults, and the command that replays a run's schedule.
 *
 * @param delivery {@code fts.delivery} for the replicas, or null for their default
 * @param batching {@code fts.batching} for the replicas, or null for their default
 * @param budget   the linearizability search's steps per key
 * @param encrypt  whether the replicas' group traffic is encrypted, with a key made for the run (docs/security.md)
 */
public record ChaosOptions(FaultPlan.Kind nemesis, int seconds, String delivery, String batching, long seed,
                           int clients, int keys, long budget, boolean encrypt) {
    public static final String USAGE = "bin/fts chaos [--nemesis kill|pause|partition|mixed] [--seconds 60] "
            + "[--delivery agreed|uniform] [--batching ALIAS] [--seed S] [--clients 10] [--keys 5] "
            + "[--budget " + Linearizability.DEFAULT_BUDGET + "] [--encrypt none|sym]";

    public ChaosOptions {
        if (seconds <= 0 || clients <= 0 || keys <= 0 || budget <= 0) {
            throw new IllegalArgumentException("--seconds, --clients, --keys and --budget must be positive");
        }
        if (delivery != null && !delivery.equals("agreed") && !delivery.equals("uniform")) {
            throw new IllegalArgumentException("--delivery is agreed or uniform, not " + delivery);
        }
    }

    /** Parses {@code bin/fts chaos} arguments; an unknown option or bad value throws IllegalArgumentException. */
    public static ChaosOptions parse(String... args) {
        FaultPlan.Kind nemesis = FaultPlan.Kind.MIXED;
        int seconds = 60;
        String delivery = null;
        String batching = null;
        long seed = new SecureRandom().nextLong();
        int clients = 10;
        int keys = 5;
        long budget = Linearizability.DEFAULT_BUDGET;
        boolean encrypt = false;
        for (int i = 0; i < args.length; i++) {
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException(args[i] + " needs a value; usage: " + USAGE);
            }
            String v = args[++i];
            switch (args[i - 1]) {
                case "--nemesis" -> nemesis = FaultPlan.Kind.parse(v);
                case "--seconds" -> seconds = Integer.parseInt(v);
                case "--delivery" -> delivery = v;
                case "--batching" -> batching = v;
                case "--seed" -> seed = Long.parseLong(v);
                case "--clients" -> clients = Integer.parseInt(v);
                case "--keys" -> keys = Integer.parseInt(v);
                case "--budget" -> budget = Long.parseLong(v);
                case "--encrypt" -> encrypt = switch (v) {
                    case "sym" -> true;
                    case "none" -> false;
                    default -> throw new IllegalArgumentException("--encrypt is none or sym, not " + v);
                };
                default -> throw new IllegalArgumentException("unknown option " + args[i - 1] + "; usage: " + USAGE);
            }
        }
        return new ChaosOptions(nemesis, seconds, delivery, batching, seed, clients, keys, budget, encrypt);
    }

    /** JVM options for every replica. */
    public List<String> replicaJvmOptions() {
        List<String> o = new ArrayList<>();
        if (delivery != null) {
            o.add("-Dfts.delivery=" + delivery);
        }
        if (batching != null) {
            o.add("-Dfts.batching=" + batching);
        }
        return o;
    }

    /** The command that runs the same fault schedule again. */
    public String replayCommand() {
        return "bin/fts chaos --nemesis " + nemesis + " --seconds " + seconds + " --seed " + seed + " --clients "
                + clients + " --keys " + keys + (delivery == null ? "" : " --delivery " + delivery)
                + (batching == null ? "" : " --batching " + batching)
                + (budget == Linearizability.DEFAULT_BUDGET ? "" : " --budget " + budget)
                + (encrypt ? " --encrypt sym" : "");
    }
}
