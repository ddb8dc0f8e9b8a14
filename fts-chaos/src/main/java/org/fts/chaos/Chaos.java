package org.fts.chaos;

import org.fts.checker.History;
import org.fts.checker.Linearizability;
import org.fts.checker.CounterCheck;
import org.fts.process.Waits;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import org.fts.checker.History.Op;
import org.fts.checker.Linearizability.Result;
import org.fts.samples.Clients;
import org.fts.testkit.ReplicaCluster;
import org.omg.CORBA.ORB;

/**
 * {@code bin/fts chaos}: replica JVMs (3 by default; with {@code --hosts} each on its own address, over JGroups
 * TCP), FT clients reading, writing and incrementing while a nemesis kills, pauses, partitions replicas or drops
 * packets between them on a seeded schedule; then every fault ends, and the run checks that the service
 * recovered (every replica answers), converged (equal state digests), and behaved: every key's history
 * linearizable, the counter exactly-once. Prints one verdict line ({@link Verdict}) and exits 0 on PASS, 1 on
 * FAIL (2 on bad options, or when a network nemesis cannot run: no iptables, not root). The history, the fault
 * log, the report and every replica's log are kept under {@code target/chaos-logs/<run>}. Every replica is
 * reaped, and the network nemeses' iptables chain removed ({@link NetFilter}), also on failure or Ctrl-C.
 *
 * <p>Order of the end: faults end; recovery is timed from the last fault's end until every replica answers a
 * plain {@code counter.value()} and goes on answering for 3 s; the clients stop; convergence is timed from the same instant until the
 * digests agree. The clients stop first because each replica takes its digest at its own point of the order:
 * under traffic, consistent replicas rarely agree at the instant they are asked.
 */
public final class Chaos {
    /** How long recovery, and then convergence, may take before the run fails. */
    static final Duration BOUND = Duration.ofSeconds(60);
    /** The clients' fts.client.request_duration: a call retried across replicas gives up after this. */
    static final String REQUEST_DURATION = "20s";
    /** How long stopping the clients may take: their last call may be retried for the request duration. */
    static final Duration STOP_BOUND = Duration.ofSeconds(35);
    /** Bank clients beside the registers' with {@code --workload bank}. */
    static final int BANK_CLIENTS = 3;

    private Chaos() {
    }

    public static void main(String[] args) {
        ChaosOptions options;
        try {
            options = ChaosOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("fts chaos: " + e.getMessage());
            System.exit(2);
            return;
        }
        int status;
        try {
            status = run(options, System.out, Path.of("target", "chaos-logs")).passed() ? 0 : 1;
        } catch (NetFilter.Unavailable e) {
            System.err.println("fts chaos: " + e.getMessage());
            status = 2;
        } catch (Exception e) {
            System.out.println("CHAOS verdict=FAIL seed=" + options.seed() + " error=" + e);
            System.out.println("replay:  " + options.replayCommand());
            e.printStackTrace();
            status = 1;
        }
        System.out.flush();
        System.exit(status);   // JacORB's threads would keep the JVM alive
    }

    /** One run; prints its progress and report on {@code out} and returns the verdict. */
    public static Verdict run(ChaosOptions o, PrintStream out, Path logsRoot) throws Exception {
        String name = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")) + "-seed" + o.seed();
        Path dir = logsRoot.resolve(name).toAbsolutePath();
        String group = "chaos-" + UUID.randomUUID().toString().substring(0, 6);
        List<String> options = new java.util.ArrayList<>(o.replicaJvmOptions());
        if (o.durable() || o.gc().equals("raft")) {   // raft always logs (docs/group-communication.md)
            options.add("-Dfts.durability.dir=" + dir.resolve("data"));
        }
        if (o.encrypt()) {   // a group key for this run only
            char[] password = ("chaos-" + UUID.randomUUID()).toCharArray();
            org.fts.jgroups.GroupSecurity.createKeystore(dir.resolve("group.p12"), password, "fts");
            java.nio.file.Files.writeString(dir.resolve("group.pw"), new String(password) + "\n");
            options.addAll(List.of("-Dfts.jgroups.encrypt=sym", "-Dfts.jgroups.keystore=" + dir.resolve("group.p12"),
                    "-Dfts.jgroups.keystore_password_file=" + dir.resolve("group.pw")));
        }
        out.println("chaos: seed=" + o.seed() + " nemesis=" + o.nemesis() + " seconds=" + o.seconds() + " replicas="
                + o.replicas() + (o.hosts() ? " on 127.0.0.2.." : "") + " clients="
                + o.clients() + " keys=" + o.keys() + " replica options=" + options
                + (o.workload().equals("bank") ? " -Dfts.outcalls=ordered -Dsamples.bank.audit=<the audit's IOR>" : ""));
        out.println("chaos: logs in " + dir);
        java.util.Map<Integer, java.util.Map<String, String>> environments = SkewedClock.environments(o);
        if (!environments.isEmpty()) {
            out.println("chaos: r" + o.skewedReplica() + "'s wall clock runs " + String.format(java.util.Locale.ROOT, "%+d", o.skew())
                    + " s off (libfaketime), at every start");
        }
        ORB ft = null;
        List<ORB> clientOrbs = new java.util.concurrent.CopyOnWriteArrayList<>();
        // iptables commands go to the fault log once it exists (its origin is the clients' start), before to out
        AtomicReference<FaultLog> faultLog = new AtomicReference<>();
        Consumer<String> netLog = line -> {
            FaultLog f = faultLog.get();
            if (f == null) {
                out.println("chaos: " + line);
            } else {
                f.record(System.nanoTime(), line);
            }
        };
        List<String> args = List.of("--hello-objects", Integer.toString(o.keys()));
        // the filter and the volumes first: they fail fast without iptables, mount or root, and the filter removes a
        // dead run's rules, before the replicas start; closed last (the volumes once every replica is gone)
        Path groupDir = o.durable() || o.gc().equals("raft") ? dir.resolve("data").resolve(group) : null;
        // the bank's transfers call a plain audit service: started first, its reference is a replica option
        try (AuditService audit = o.workload().equals("bank") ? new AuditService() : null;
             NetFilter net = o.nemesis().needsNetFilter() ? NetFilter.open(netLog) : null;
             Volumes volumes = o.nemesis().needsVolumes(o.durable()) ? Volumes.open(groupDir, o.replicas(), netLog)
                     : null;
             ReplicaCluster cluster = ReplicaCluster.withEnvironments(group, o.hostAddresses(),
                     audit == null ? options : java.util.stream.Stream.concat(options.stream(),
                             audit.replicaOptions().stream()).toList(), args, dir, environments);
             Probe probe = new Probe(cluster)) {
            long origin = System.nanoTime();
            History history = new History(origin);
            FaultLog faults = new FaultLog(origin, out);
            faultLog.set(faults);
            ft = ORB.init(new String[0], clientProperties());
            boolean own = o.placement().equals("load");   // a connection per client, so that placement moves them
            ORB shared = ft;
            java.util.function.IntFunction<ORB> orbs = c -> {
                if (!own) {
                    return shared;
                }
                ORB orb = ORB.init(new String[0], clientProperties());
                clientOrbs.add(orb);
                return orb;
            };
            Workload load = new Workload(orbs, cluster::reference, o.replicas(), o.clients(), o.keys(), history,
                    o.seed(), own);
            load.start();
            BankLoad bank = o.workload().equals("bank")
                    ? new BankLoad(orbs, cluster.reference("bank"), o.replicas(), BANK_CLIENTS, o.seed()) : null;
            if (bank != null) {
                bank.start();
            }
            out.println("chaos: " + o.replicas() + " replicas serve" + (o.hosts() ? " on " + cluster.hosts() : "")
                    + ", " + o.clients() + " clients started; the nemesis runs for " + o.seconds() + " s");
            Nemesis nemesis = new Nemesis(new FaultPlan(o.nemesis(), o.seed(), o.replicas(), o.durable()),
                    new ClusterTarget(cluster, probe, net, groupDir, volumes, o.gc().equals("raft")), faults, NemesisClock.SYSTEM);
            nemesis.run(origin + TimeUnit.SECONDS.toNanos(o.seconds()));
            long end = nemesis.lastFaultEnd();

            long polling = System.nanoTime();
            long recovered = probe.awaitEveryReplicaServes(BOUND, Duration.ofSeconds(3));
            long seen = nemesis.servingSince();
            if (recovered >= 0 && seen >= end && recovered - polling < TimeUnit.MILLISECONDS.toNanos(500)) {
                recovered = seen;   // the nemesis's probes saw every replica serve from then on, up to this check
            }
            long recoverMs = recovered < 0 ? -1 : Math.max(0, TimeUnit.NANOSECONDS.toMillis(recovered - end));
            out.println("chaos: " + (recovered < 0 ? "NOT every replica serves " + BOUND.toSeconds() + " s after"
                    : "every replica serves " + recoverMs + " ms after") + " the last fault ended");
            long stopped = history.now();
            int stuck = load.stop(STOP_BOUND) + (bank == null ? 0 : bank.stop(STOP_BOUND));
            long converged = Waits.until(() -> digestsAgree(cluster), BOUND);
            ORB checking = ft;
            BankLoad.Report bankReport = bank == null ? null : bank.check((i, id) -> checking.string_to_object(
                    Clients.corbaloc(cluster.hosts().get(i), cluster.ports().get(i), cluster.group(), id)),
                    o.replicas(), audit.entries());
            long convergeMs = converged < 0 ? -1 : Math.max(0, TimeUnit.NANOSECONDS.toMillis(converged - end));
            List<Integer> finals = new ArrayList<>();
            for (int i = 0; i < o.replicas(); i++) {
                finals.add(probe.valueWithin(i, BOUND));
            }

            List<Op> ops = history.ops();
            Path historyFile = dir.resolve("history.tsv");
            History.write(ops, historyFile);
            Files.write(dir.resolve("faults.log"), faults.lines());
            out.println("chaos: " + ops.size() + " operations; checking (history in " + historyFile + ")");
            List<Result> keys = new Linearizability(o.budget()).check(ops);
            CounterCheck.Report counter = CounterCheck.of(ops, finals);
            long firstInvoke = ops.isEmpty() ? 0 : ops.get(0).invoke();   // ops are sorted by invoke time
            Verdict v = Verdict.of(o, new Verdict.Run(ops, keys, counter, recoverMs, convergeMs, nemesis.faults(),
                    stuck, nemesis.unexpectedExits(), History.maxGapNanos(ops, firstInvoke, stopped), bankReport));
            List<String> report = new ArrayList<>();
            keys.forEach(k -> report.add("  " + k));
            report.add("  counter: " + counter.ok() + " OK and " + counter.info() + " INFO increments, final values "
                    + counter.finals() + (counter.explanation() == null ? "" : ": " + counter.explanation()));
            report.add("  declared reads (per replica, since its last start): " + reads(cluster));
            if (bankReport != null) {
                report.add(bankReport.line());
            }
            v.reasons().forEach(r -> report.add("FAIL: " + r));
            if (!v.passed()) {
                report.add("history: " + historyFile);
                report.add("faults:  " + dir.resolve("faults.log"));
                report.add("logs:    " + dir + " (" + group + "-r<i>.err per replica)");
                report.add("replay:  " + o.replayCommand());
            }
            report.add(v.line());
            report.forEach(out::println);
            Files.write(dir.resolve("report.txt"), report);
            return v;
        } finally {
            if (ft != null) {
                ft.shutdown(false);
            }
            clientOrbs.forEach(orb -> orb.shutdown(false));
        }
    }

    private static Properties clientProperties() {
        Properties p = Clients.ftDefaults();
        p.setProperty("fts.client.request_duration", REQUEST_DURATION);
        p.setProperty("OAIAddr", "127.0.0.1");
        return p;
    }

    /** Each replica's declared-read counters (ReplicaMXBean), for the report: what the read path served. */
    private static String reads(ReplicaCluster cluster) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < cluster.ports().size(); i++) {
            try {
                out.add("r" + i + " " + cluster.reads(i));
            } catch (java.io.IOException e) {
                out.add("r" + i + " ?");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                out.add("r" + i + " ?");
            }
        }
        return String.join(", ", out);
    }

    /** Whether every replica's state digest is the same now (a replica that does not answer: no). */
    private static boolean digestsAgree(ReplicaCluster cluster) {
        try {
            HashSet<String> digests = new HashSet<>();
            for (int i = 0; i < cluster.ports().size(); i++) {
                digests.add(cluster.digest(i));
            }
            return digests.size() == 1;
        } catch (java.io.IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
