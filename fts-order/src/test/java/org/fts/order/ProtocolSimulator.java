package org.fts.order;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.fts.gc.GroupConfig;
import org.fts.gc.MemberId;
import org.fts.gc.View;
import org.fts.gc.internal.EpochId;

/**
 * A deterministic, seeded, single-threaded simulation of the real {@link TotalOrder} protocol (in the manner of
 * FoundationDB's simulator): N replicas over {@link SimNetwork}, views installed the way JGroups' GMS installs
 * them (not agreed: ids from each coordinator's logical time, members that miss a view or get it late), random
 * broadcasts, deliveries, connectivity changes, crashes, restarts as new incarnations and state transfers, all
 * drawn from one {@link Random}. {@link SimHistory} checks the invariants at every delivery; a run ends with
 * everything healed and checks that the group is primary again, every member holds the one history, and the
 * last broadcasts are delivered everywhere (docs/simulator.md).
 */
final class ProtocolSimulator {
    /**
     * N, the number of random steps before the heal, the delivery guarantee, and whether crashes may go beyond
     * the fault model (a majority without the state: then liveness is not checked, safety still is).
     */
    record Options(int replicas, int steps, boolean uniform, boolean beyondFaultModel, Ordering ordering,
                   boolean durable, boolean reads, long leaseNanos, boolean powerLoss, int learners) {
        Options(int replicas, int steps, boolean uniform, boolean beyondFaultModel, Ordering ordering,
                boolean durable, boolean reads, long leaseNanos, boolean powerLoss) {
            this(replicas, steps, uniform, beyondFaultModel, ordering, durable, reads, leaseNanos, powerLoss, 0);
        }

        Options(int replicas, int steps, boolean uniform, boolean beyondFaultModel, Ordering ordering,
                boolean durable, boolean reads, long leaseNanos) {
            this(replicas, steps, uniform, beyondFaultModel, ordering, durable, reads, leaseNanos, false);
        }

        Options(int replicas, int steps, boolean uniform, boolean beyondFaultModel, Ordering ordering,
                boolean durable, boolean reads) {
            this(replicas, steps, uniform, beyondFaultModel, ordering, durable, reads, 0);
        }

        Options(int replicas, int steps, boolean uniform, boolean beyondFaultModel, Ordering ordering) {
            this(replicas, steps, uniform, beyondFaultModel, ordering, false, uniform);
        }

        Options(int replicas, int steps, boolean uniform, boolean beyondFaultModel, Ordering ordering,
                boolean durable) {
            this(replicas, steps, uniform, beyondFaultModel, ordering, durable, uniform);
        }

        /**
         * These options without reads ({@link SimReads}): the schedules of runs before reads were modelled, which the
         * seeds that found a mechanism then replay step for step.
         */
        Options withoutReads() {
            return new Options(replicas, steps, uniform, beyondFaultModel, ordering, durable, false, leaseNanos,
                    powerLoss, learners);
        }

        /**
         * These options with logs and power losses whose sync mark lags, damaging the batch synced last on one replica
         * ({@link SimFaults#maybeDamageLastSync}).
         */
        Options withPowerLoss() {
            return new Options(replicas, steps, uniform, beyondFaultModel, ordering, true, reads, leaseNanos, true,
                    learners);
        }

        static Options of(int replicas) {
            return new Options(replicas, DEFAULT_STEPS, true, false, Ordering.SEQUENCER);
        }

        Options with(Ordering o) {
            return new Options(replicas, steps, uniform, beyondFaultModel, o, durable, reads, leaseNanos, powerLoss,
                    learners);
        }

        /** These options with each replica's log modelled ({@code fts.durability=log}), storage faults included. */
        Options withLogs() {
            return new Options(replicas, steps, uniform, beyondFaultModel, ordering, true, reads, leaseNanos,
                    powerLoss, learners);
        }

        /** These options with read leases of {@code ticks} timer steps ({@code fts.reads.lease}, docs/reads.md). */
        Options withLease(int ticks) {
            return new Options(replicas, steps, uniform, beyondFaultModel, ordering, durable, reads,
                    ticks * SimReads.TICK_NANOS, powerLoss, learners);
        }

        /**
         * These options with {@code k} learners beside the N voters ({@code fts.group.voters}): replicas r0..r(N-1)
         * vote, the next {@code k} count in no majority, and the fault model (a minority without the state) counts
         * voters only: learners crash and lose their state freely.
         */
        Options withLearners(int k) {
            return new Options(replicas, steps, uniform, beyondFaultModel, ordering, durable, reads, leaseNanos,
                    powerLoss, k);
        }

        /** Every replica modelled: the N voters and the learners. */
        int nodes() {
            return replicas + learners;
        }

        /** Whether replica number {@code i} votes. */
        boolean votes(int i) {
            return i < replicas;
        }

        String describe() {
            return "N=" + replicas + ", " + steps + " steps, " + (uniform ? "uniform" : "agreed")
                    + (beyondFaultModel ? ", beyond the fault model" : "")
                    + (ordering == Ordering.SEQUENCER ? "" : ", " + ordering.alias + " ordering")
                    + (durable ? ", with logs and storage faults" : "") + (powerLoss ? ", power losses" : "") + (reads || !uniform ? "" : ", no reads")
                    + (leaseNanos > 0 ? ", read leases of " + leaseNanos / SimReads.TICK_NANOS + " ticks" : "")
                    + (learners > 0 ? ", " + learners + " learners" : "");
        }

        /** The arguments of bin/fts simulate that run these options. */
        String args() {
            return "--replicas " + replicas + " --steps " + steps + (uniform ? "" : " --delivery agreed")
                    + (beyondFaultModel ? " --faults beyond" : "")
                    + (ordering == Ordering.SEQUENCER ? "" : " --ordering " + ordering.alias)
                    + (durable ? " --durability log" : "") + (powerLoss ? " --power-loss on" : "")
                    + (reads || !uniform ? "" : " --reads off")
                    + (leaseNanos > 0 ? " --lease " + leaseNanos / SimReads.TICK_NANOS : "")
                    + (learners > 0 ? " --learners " + learners : "");
        }
    }

    /** One run: ok, or the first invariant broken, why, and the steps that led there (when recorded). */
    record Result(long seed, Options options, String invariant, String detail, int step, List<String> schedule,
                  long deliveries) {
        boolean ok() {
            return invariant == null;
        }

        String report() {
            StringBuilder sb = new StringBuilder("seed " + seed + " (" + options.describe() + "): ");
            if (ok()) {
                return sb.append("ok, ").append(deliveries).append(" deliveries").toString();
            }
            sb.append("VIOLATION of ").append(invariant).append(" at step ").append(step).append(": ").append(detail);
            if (schedule != null) {
                sb.append("\nschedule (").append(schedule.size()).append(" lines):");
                schedule.forEach(s -> sb.append("\n  ").append(s));
            }
            sb.append("\nreplay: bin/fts simulate --replay ").append(seed).append(' ').append(options.args());
            return sb.toString();
        }
    }

    /** Random steps before the heal, per run. */
    static final int DEFAULT_STEPS = 300;
    private static final int QUIESCENCE_BOUND = 200_000;

    private final long seed;
    private final Options options;
    private final Random rnd;
    private final Random powerRnd;
    private final GroupConfig config;
    private final SimNetwork net;
    private final SimNode[] nodes;
    /** With logs: each replica's disk, which outlives its incarnations. */
    private final SimLog.Disk[] disks;
    private final int[] incarnations;
    private final Map<MemberId, SimNode> all = new HashMap<>();
    final SimHistory history = new SimHistory(this);
    private final SimReads reads = new SimReads(this);
    private final List<String> schedule;
    private final PrintStream verbose;
    private final SimSteps steps;
    private int step;
    private String invariant;
    private String detail;
    private int violationStep;

    private ProtocolSimulator(long seed, Options options, boolean record, PrintStream verbose) {
        this.seed = seed;
        this.options = options;
        this.rnd = new Random(seed);
        this.powerRnd = new Random(seed ^ 0x5deece66dL);
        GroupConfig c = new GroupConfig(options.replicas(), options.uniform()).withReadLease(options.leaseNanos());
        if (options.learners() > 0) {
            java.util.Set<String> voters = new java.util.HashSet<>();
            for (int i = 0; i < options.replicas(); i++) {
                voters.add("r" + i);
            }
            c = c.withVoters(voters);
        }
        this.config = c;
        this.net = new SimNetwork(options.nodes());
        this.nodes = new SimNode[options.nodes()];
        this.disks = new SimLog.Disk[options.nodes()];
        if (options.durable()) {
            for (int i = 0; i < disks.length; i++) {
                disks[i] = new SimLog.Disk();
            }
        }
        this.incarnations = new int[options.nodes()];
        this.schedule = record || verbose != null ? new ArrayList<>() : null;
        this.verbose = verbose;
        this.steps = new SimSteps(this);
        for (int i = 0; i < nodes.length; i++) {
            start(i);
        }
    }

    /**
     * Runs {@code seed}; on a violation, runs it again recording the schedule. The run is deterministic: a second
     * run that does not break the same invariant at the same step is itself reported.
     */
    static Result run(long seed, Options options) {
        Result r = new ProtocolSimulator(seed, options, false, null).run();
        if (r.ok()) {
            return r;
        }
        Result again = new ProtocolSimulator(seed, options, true, null).run();
        if (!r.invariant().equals(again.invariant()) || r.step() != again.step()) {
            return new Result(seed, options, "determinism", "the run broke " + r.invariant() + " at step " + r.step()
                    + ", its replay " + again.invariant() + " at step " + again.step(), r.step(), again.schedule(),
                    r.deliveries());
        }
        return again;
    }

    /** Runs {@code seed} logging every step, and each member's state after it, to {@code out}. */
    static Result replay(long seed, Options options, PrintStream out) {
        return new ProtocolSimulator(seed, options, true, out).run();
    }

    private Result run() {
        org.fts.gc.FailStopHook.Action before = org.fts.gc.FailStopHook.replace((thread, cause) -> { });
        try {
            guarded(steps::found);
            for (step = 1; step <= options.steps() && ok(); step++) {
                guarded(steps::random);
            }
            if (ok()) {
                guarded(new SimEnd(this)::run);
            }
        } finally {
            org.fts.gc.FailStopHook.replace(before);
        }
        return new Result(seed, options, invariant, detail, violationStep, schedule, history.deliveries);
    }

    private void guarded(Runnable r) {
        try {
            r.run();
        } catch (Throwable t) {
            StackTraceElement[] st = t.getStackTrace();
            violate("no exception", t + (st.length > 0 ? " at " + st[0] : ""));
        }
        if (verbose != null) {
            for (SimNode n : nodes) {
                verbose.println("      " + n + (n.alive ? "" : " (crashed)") + " view=" + n.viewId + " ltime=" + n.ltime
                        + " " + n.order.describe() + " | " + n.describeApp());
            }
        }
    }

    // ================================ for the steps ================================

    boolean ok() {
        return invariant == null;
    }

    void violate(String inv, String why) {
        if (invariant == null) {
            invariant = inv;
            detail = why;
            violationStep = step;
            log("!! VIOLATION of " + inv + ": " + why);
        }
    }

    boolean recording() {
        return schedule != null;
    }

    void log(String line) {
        if (schedule != null) {
            String s = String.format("%4d %s", step, line);
            schedule.add(s);
            if (verbose != null) {
                verbose.println(s);
            }
        }
    }

    /** The power-loss faults' own random source ({@link SimFaults#maybeDamageLastSync}). */
    Random powerRnd() {
        return powerRnd;
    }

    Random rnd() {
        return rnd;
    }

    SimReads reads() {
        return reads;
    }

    Options options() {
        return options;
    }

    SimNetwork net() {
        return net;
    }

    int size() {
        return nodes.length;
    }

    SimNode node(int replica) {
        return nodes[replica];
    }

    SimNode byId(MemberId id) {
        return all.get(id);
    }

    List<SimNode> live() {
        List<SimNode> out = new ArrayList<>();
        for (SimNode n : nodes) {
            if (n.alive) {
                out.add(n);
            }
        }
        return out;
    }

    boolean[] liveMask() {
        boolean[] m = new boolean[nodes.length];
        for (int i = 0; i < nodes.length; i++) {
            m[i] = nodes[i].alive;
        }
        return m;
    }

    <T> T pick(List<T> from) {
        return from.get(rnd.nextInt(from.size()));
    }

    /** A new incarnation of replica {@code i}: fresh, in no view (with a log: it goes on from what its disk holds). */
    SimNode start(int i) {
        SimNode n = new SimNode(this, i, incarnations[i]++, config, options.ordering(),
                disks[i] == null ? null : new SimLog(disks[i]));
        nodes[i] = n;
        all.put(n.id, n);
        return n;
    }

    void crash(SimNode n) {
        n.alive = false;
        net.clear(n.replica);
        n.late.clear();
        if (n.log != null) {
            n.log.crash(rnd);
            SimFaults faults = new SimFaults(this);
            faults.maybeDamage(n.replica);
            faults.maybeDamageLastSync(n.replica);
        }
    }

    SimLog.Disk disk(int replica) {
        return disks[replica];
    }

    /**
     * Replicas without the group's state in memory: crashed, or whose incarnation never held it (restarted, or
     * never in a primary epoch, and not synced since). The fault model (docs/primary-view.md: one crash at a
     * time, a restarted replica fetches the state before the next) keeps them a minority.
     */
    int damaged() {
        int d = 0;
        for (SimNode n : nodes) {
            if (options.votes(n.replica) && (!n.alive || !n.everSynced || history.superseded(n))) {
                d++;
            }
        }
        return d;
    }

    // ================================ the transport ================================

    /** A unicast from {@code from}: JGroupsChannel sends only to members of its current view. */
    void send(SimNode from, MemberId to, SimNetwork.Kind kind, byte[] msg) {
        if (!from.alive || from.view == null || !from.view.contains(to) || to.equals(from.id)) {
            return;
        }
        if (msg[0] == Wire.Tag.EPOCH.code && Wire.decode(msg) instanceof Wire.EpochMsg e && e.gap()) {
            // The fault model's accounting: a replica is without the group's state from the moment a recovery decides
            // that its history is superseded (it has a gap), until it installs a state.
            SimNode target = all.get(to);
            if (target != null) {
                target.everSynced = false;
            }
        }
        net.send(from.replica, replica(to), new SimNetwork.Msg(from.id, to, kind, msg));
    }

    /** A multicast from {@code from}: to every other member of its current view. */
    void multicast(SimNode from, SimNetwork.Kind kind, byte[] msg) {
        if (!from.alive || from.view == null) {
            return;
        }
        for (MemberId m : from.view.members()) {
            if (!m.equals(from.id)) {
                net.send(from.replica, replica(m), new SimNetwork.Msg(from.id, m, kind, msg));
            }
        }
    }

    static int replica(MemberId m) {
        return Integer.parseInt(m.replica().substring(1));
    }

    /** Delivers up to {@code batch} messages of one queue to their receiver, then its end of batch. */
    void deliver(SimNetwork.Queue q, int batch) {
        SimNode to = nodes[q.to()];
        int handled = 0;
        for (int i = 0; i < batch && !net.isEmpty(q); i++) {
            SimNetwork.Msg m = net.take(q, rnd);
            if (!m.to().equals(to.id)) {
                continue;   // for an earlier incarnation
            }
            if (recording()) {
                log("deliver " + m.from() + " -> " + m.to() + " " + m.kind().name().toLowerCase() + " "
                        + SimNetwork.describe(m.bytes()));
            }
            to.order.receive(m.from(), m.bytes());
            handled++;
        }
        if (handled > 0) {
            to.order.afterBatch();
        }
    }

    void abcast(SimNode n) {
        String payload = n.id.name() + ":" + n.broadcasts++;
        history.sent(payload);
        if (recording()) {
            log("abcast " + payload);
        }
        n.order.abcast(payload.getBytes(StandardCharsets.UTF_8));
    }

    // ================================ views ================================

    /**
     * {@code v} reaches {@code n}: as JGroups' GMS.installView, it raises the logical time whatever happens,
     * and installs the view only if its id is higher than the current one's and it contains {@code n}. The
     * links from {@code n} to the members the view leaves out may drop what waits on them.
     */
    boolean see(SimNode n, long id, List<MemberId> members) {
        n.ltime = Math.max(n.ltime, id);
        if (id <= n.viewId || !members.contains(n.id)) {
            return false;
        }
        n.viewId = id;
        n.view = new View(id, members, n.id);
        for (int j = 0; j < nodes.length; j++) {
            if (j != n.replica && !members.contains(nodes[j].id) && rnd.nextBoolean()) {
                int dropped = net.truncate(n.replica, j, rnd);
                if (dropped > 0 && recording()) {
                    log("  " + n + " drops " + dropped + " messages to " + nodes[j] + " (not in its view " + id + ")");
                }
            }
        }
        n.order.viewChanged(n.view);
        return true;
    }

    /** Shuffles, keeping the first element first (the coordinator). */
    void shuffleTail(List<MemberId> members) {
        Collections.shuffle(members.subList(1, members.size()), rnd);
    }

    /** Whether every live member opened the epoch of view {@code id}. */
    boolean allOpened(long id) {
        for (SimNode n : live()) {
            EpochId e = n.order.phase() instanceof Phase.Open o ? o.epoch() : null;
            if (e == null || e.view() != id) {
                return false;
            }
        }
        return true;
    }

    /** Delivers every message and ACK timer until nothing moves; false (a violation) past the bound. */
    boolean quiesce() {
        int leaseWaits = 0;
        for (int i = 0; i < QUIESCENCE_BOUND && ok(); i++) {
            List<SimNetwork.Queue> q = net.deliverable(liveMask());
            if (q.isEmpty()) {
                live().forEach(n -> {
                    if (n.log != null) {
                        n.log.sync();
                    }
                });
                live().forEach(n -> n.order.ackIfMoved());
                if (net.deliverable(liveMask()).isEmpty() && options.leaseNanos() > 0 && leaseWaits++ < 10) {
                    reads.passTime(options.leaseNanos());   // reports held for read leases go once they end
                    live().forEach(n -> n.order.readTick(reads.clock()));
                }
                if (net.deliverable(liveMask()).isEmpty()) {
                    live().forEach(n -> n.pump.drain());
                    return true;
                }
                continue;
            }
            deliver(pick(q), 1 + rnd.nextInt(3));
        }
        violate("liveness", "no quiescence after " + QUIESCENCE_BOUND + " deliveries");
        return false;
    }

    /** A state transfer for {@code n}, whose provider holds the state up to its gap; false if none is possible. */
    boolean sync(SimNode n) {
        SimNode p = n.provider == null ? null : all.get(n.provider);
        if (n.standing != SimNode.Standing.UNSYNCED || p == null || !p.alive || !p.covers(n.gapStart - 1)) {
            return false;
        }
        if (n.gapsHanded < n.gapsTapped) {
            if (rnd.nextBoolean()) {
                // The application installs a state for an earlier gap and says so: the protocol must ignore it.
                if (recording()) {
                    log("sync " + n + " (stale: a later gap is still queued in its pump)");
                }
                n.order.synced();
                return true;
            }
            n.pump.drain();
        }
        if (recording()) {
            log("sync " + n + " from " + p + " up to " + (n.gapStart - 1) + " + " + n.buffered.size() + " delivered since");
        }
        history.install(n, p);
        n.order.synced();
        return true;
    }

    void onDelivered(SimNode n, long gseq, MemberId origin, String payload) {
        history.delivered(n, gseq, origin, payload);
    }

    void onOpened(SimNode n, EpochId epoch, long ballot, long start, boolean gap, boolean refound, MemberId provider) {
        if (recording()) {
            log("  " + n + " opens " + epoch + " at " + start + (gap ? " with a gap, provider " + provider : "")
                    + (refound ? " (founded again)" : ""));
        }
        history.opened(n, epoch, ballot, start, gap, refound, provider);
    }
}
