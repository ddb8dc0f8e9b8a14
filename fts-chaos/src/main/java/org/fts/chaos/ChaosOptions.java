package org.fts.chaos;

import org.fts.checker.Linearizability;
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
 * @param replicas how many replicas
 * @param hosts    whether replica i runs on its own address, 127.0.0.(2+i) (the multi-host recipe on one box)
 * @param durable  whether the replicas log ({@code fts.durability=log}, each in the run's directory)
 * @param gc       the replicas' group-communication binding ({@code fts.gc}: jgroups or raft)
 * @param ordering the jgroups binding's ordering ({@code fts.gc.jgroups.ordering}: sequencer or offload)
 * @param placement where new client connections are served ({@code fts.placement}: first or load); with load,
 *                  every client is an ORB of its own and starts at the first replica, so that connections move
 * @param reads    {@code declared}: the workload's reads ({@code get}, {@code value}) are declared reads ({@code
 *                 fts.reads}, docs/reads.md), executed at one replica after a read barrier; {@code lease}: the same,
 *                 and the sequencer holds a read lease of {@link #LEASE} ({@code fts.reads.lease}); {@code ordered}:
 *                 ordered like writes
 * @param workload {@code registers} (the default: the registers and the counter) or {@code bank}: the same, and bank
 *                 clients that open, fund, transfer between and close accounts (objects created and destroyed while
 *                 serving), checked for money neither created nor lost and closed accounts gone everywhere
 * @param skew     with {@code --nemesis clock}: how far the skewed replica's wall clock is set off (seconds, either
 *                 sign; 0 runs the same schedule unskewed, the comparison the nemesis is judged against)
 */
public record ChaosOptions(FaultPlan.Kind nemesis, int seconds, String delivery, String batching, long seed,
                           int clients, int keys, long budget, boolean encrypt, int replicas, boolean hosts,
                           boolean durable, String gc, String ordering, String placement, String reads, int skew,
                           String workload) {
    /** The read lease of {@code --reads lease}: shorter than every pause of the pause nemesis. */
    public static final String LEASE = "500ms";

    public static final String USAGE = "bin/fts chaos [--nemesis kill|pause|partition|mixed|netpart|bridge|oneway"
            + "|lossy|netmixed|killall|corrupt|ctrl|diskfull|clock|powerloss|reconfig] [--skew 30] [--seconds 60] [--replicas 3] [--hosts] [--delivery agreed|uniform] "
            + "[--batching ALIAS] [--durability memory|log] [--seed S] [--clients 10] [--keys 5] [--budget "
            + Linearizability.DEFAULT_BUDGET + "] [--encrypt none|sym] [--gc jgroups|raft] [--ordering sequencer|offload]"
            + " [--placement first|load] [--reads declared|lease|ordered] [--workload registers|bank]";
    /** The clock nemesis's skew unless {@code --skew} says otherwise: a replica 30 s fast. */
    static final int DEFAULT_SKEW = 30;
    /** The most replicas {@code --hosts} places: 127.0.0.2 to 127.0.0.254. */
    static final int MAX_HOSTS = 253;

    public ChaosOptions {
        if (seconds <= 0 || clients <= 0 || keys <= 0 || budget <= 0) {
            throw new IllegalArgumentException("--seconds, --clients, --keys and --budget must be positive");
        }
        if (delivery != null && !delivery.equals("agreed") && !delivery.equals("uniform")) {
            throw new IllegalArgumentException("--delivery is agreed or uniform, not " + delivery);
        }
        if (replicas < 3 || (hosts && replicas > MAX_HOSTS)) {
            throw new IllegalArgumentException("--replicas is 3 or more" + (hosts ? " and at most " + MAX_HOSTS
                    + " with --hosts" : "") + ", not " + replicas);
        }
        if (nemesis == FaultPlan.Kind.KILLALL && !durable) {
            throw new IllegalArgumentException("--nemesis killall loses every replica's memory at once: it needs "
                    + "--durability log (without a log every write is lost and the group is founded anew, empty: "
                    + "docs/primary-view.md)");
        }
        if (nemesis.needsRaft() && !"raft".equals(gc)) {
            throw new IllegalArgumentException("--nemesis " + nemesis + " changes the voters while the group serves: it "
                    + "needs --gc raft (the jgroups binding's voters are fixed at start: docs/membership.md)");
        }
        if (nemesis.needsLog() && !durable) {
            throw new IllegalArgumentException("--nemesis " + nemesis + " damages or fills the replicas' logs: it needs "
                    + "--durability log");
        }
        if ((nemesis == FaultPlan.Kind.CTRL || nemesis == FaultPlan.Kind.POWERLOSS) && replicas != 3) {
            throw new IllegalArgumentException("--nemesis " + nemesis + " plays its scenario on 3 replicas, not "
                    + replicas);
        }
        if (!gc.equals("jgroups") && !gc.equals("raft")) {
            throw new IllegalArgumentException("--gc is jgroups or raft, not " + gc);
        }
        if (!ordering.equals("sequencer") && !(ordering.equals("offload") && gc.equals("jgroups"))) {
            throw new IllegalArgumentException("--ordering is sequencer or offload (with --gc jgroups), not " + ordering);
        }
        if (!placement.equals("first") && !placement.equals("load")) {
            throw new IllegalArgumentException("--placement is first or load, not " + placement);
        }
        if (!reads.equals("declared") && !reads.equals("lease") && !reads.equals("ordered")) {
            throw new IllegalArgumentException("--reads is declared, lease or ordered, not " + reads);
        }
        if (durable && "agreed".equals(delivery)) {
            throw new IllegalArgumentException("--durability log needs uniform delivery");
        }
        if (!workload.equals("registers") && !workload.equals("bank")) {
            throw new IllegalArgumentException("--workload is registers or bank, not " + workload);
        }
        if (skew != 0 && nemesis != FaultPlan.Kind.CLOCK) {
            throw new IllegalArgumentException("--skew sets a replica's wall clock off for --nemesis clock only");
        }
        if (Math.abs(skew) > 3_600) {
            throw new IllegalArgumentException("--skew is at most an hour either way (seconds), not " + skew);
        }
        if (nemesis.needsNetFilter() && !hosts) {
            throw new IllegalArgumentException("--nemesis " + nemesis + " drops packets between replica addresses: "
                    + "it needs --hosts (replica i on 127.0.0.(2+i)), and iptables and root");
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
        int replicas = 3;
        boolean hosts = false;
        boolean durable = false;
        String gc = "jgroups";
        String ordering = "sequencer";
        String placement = "first";   // the product's default
        String reads = "declared";
        Integer skew = null;
        String workload = "registers";
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--hosts")) {   // the one flag without a value
                hosts = true;
                continue;
            }
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException(args[i] + " needs a value; usage: " + USAGE);
            }
            String v = args[++i];
            switch (args[i - 1]) {
                case "--nemesis" -> nemesis = FaultPlan.Kind.parse(v);
                case "--seconds" -> seconds = Integer.parseInt(v);
                case "--replicas" -> replicas = Integer.parseInt(v);
                case "--delivery" -> delivery = v;
                case "--batching" -> batching = v;
                case "--durability" -> durable = switch (v) {
                    case "log" -> true;
                    case "memory" -> false;
                    default -> throw new IllegalArgumentException("--durability is memory or log, not " + v);
                };
                case "--seed" -> seed = Long.parseLong(v);
                case "--gc" -> gc = v;
                case "--ordering" -> ordering = v;
                case "--placement" -> placement = v;
                case "--reads" -> reads = v;
                case "--skew" -> skew = Integer.parseInt(v.startsWith("+") ? v.substring(1) : v);
                case "--clients" -> clients = Integer.parseInt(v);
                case "--keys" -> keys = Integer.parseInt(v);
                case "--workload" -> workload = v;
                case "--budget" -> budget = Long.parseLong(v);
                case "--encrypt" -> encrypt = switch (v) {
                    case "sym" -> true;
                    case "none" -> false;
                    default -> throw new IllegalArgumentException("--encrypt is none or sym, not " + v);
                };
                default -> throw new IllegalArgumentException("unknown option " + args[i - 1] + "; usage: " + USAGE);
            }
        }
        return new ChaosOptions(nemesis, seconds, delivery, batching, seed, clients, keys, budget, encrypt, replicas,
                hosts, durable, gc, ordering, placement, reads,
                skew != null ? skew : nemesis == FaultPlan.Kind.CLOCK ? DEFAULT_SKEW : 0, workload);
    }

    /** Each replica's address: 127.0.0.(2+i) with {@code --hosts}, else 127.0.0.1 for all. */
    public List<String> hostAddresses() {
        List<String> a = new ArrayList<>();
        for (int i = 0; i < replicas; i++) {
            a.add(hosts ? "127.0.0." + (2 + i) : "127.0.0.1");
        }
        return a;
    }

    /**
     * With {@code --nemesis clock}: the replica whose wall clock is skewed, drawn from the seed apart from the fault
     * schedule (which stays the kill nemesis's for the same seed); -1 otherwise.
     */
    public int skewedReplica() {
        return nemesis == FaultPlan.Kind.CLOCK ? new java.util.Random(seed ^ 0x5eed_c10cL).nextInt(replicas) : -1;
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
        if (gc.equals("raft")) {   // its log directory: the run's (Chaos)
            o.add("-Dfts.gc=raft");
            o.add("-Dfts.gc.raft.members=" + String.join(",", java.util.stream.IntStream.range(0, replicas)
                    .mapToObj(i -> "r" + i).toList()));
        }
        if (ordering.equals("offload")) {
            o.add("-Dfts.gc.jgroups.ordering=offload");
        }
        o.add("-Dfts.placement=" + placement);   // either way: the default may change
        if (!reads.equals("ordered")) {   // the workload's reads (Workload): every run exercises the read path
            o.add("-Dfts.reads=IDL:fts_samples/HelloObj:1.0#get,IDL:fts_samples/Counter:1.0#value");
        }
        if (reads.equals("lease")) {   // and the sequencer's read lease (docs/reads.md)
            o.add("-D" + org.fts.gc.GroupConfig.READ_LEASE.name() + "=" + LEASE);
        }
        if (durable) {
            o.add("-Dfts.durability=log");   // the directory: the run's (Chaos)
            // the smallest checkpoint interval: a run's few MB of log checkpoint and compact many times, so that
            // restarts go on from checkpoints and meet logs compacted past them
            o.add("-D" + org.fts.gc.Durability.CHECKPOINT.name() + "=" + (64 << 10));
        }
        return o;
    }

    /** The command that runs the same fault schedule again. */
    public String replayCommand() {
        return "bin/fts chaos --nemesis " + nemesis + " --seconds " + seconds + " --seed " + seed + " --clients "
                + clients + " --keys " + keys + (replicas == 3 ? "" : " --replicas " + replicas)
                + (hosts ? " --hosts" : "") + (delivery == null ? "" : " --delivery " + delivery)
                + (batching == null ? "" : " --batching " + batching) + (durable ? " --durability log" : "")
                + (budget == Linearizability.DEFAULT_BUDGET ? "" : " --budget " + budget)
                + (encrypt ? " --encrypt sym" : "") + (gc.equals("jgroups") ? "" : " --gc " + gc)
                + (ordering.equals("sequencer") ? "" : " --ordering " + ordering)
                + (placement.equals("first") ? "" : " --placement " + placement)
                + (reads.equals("declared") ? "" : " --reads " + reads)
                + (nemesis == FaultPlan.Kind.CLOCK ? " --skew " + skew : "")
                + (workload.equals("registers") ? "" : " --workload " + workload);
    }
}
