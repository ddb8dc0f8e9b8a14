package org.fts.samples;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

import org.fts.batching.BatchStats;
import org.fts.gc.jgroups.JGroupsFaults;
import org.fts.goa.GroupPOA;
import org.fts.goa.GroupPOAInitializer;
import org.fts.goa.giop.GiopGuard;
import org.omg.CORBA.ORB;
import org.omg.PortableServer.POA;
import org.omg.PortableServer.POAHelper;
import org.omg.PortableServer.Servant;

/**
 * A replica of the sample objects ({@code hello}, {@code counter}, {@code account}). Configured by system
 * properties ({@code -Dfts.replica.id=r0 -DOAPort=...}; see docs/configuration.md), which it passes to
 * ORB.init; the adaptor reads its {@code fts.*} keys from the ORB's configuration. The only FTS line is where the
 * adaptor comes from, {@code resolve_initial_references("GroupPOA")} (registered by {@link GroupPOAInitializer});
 * with {@code --plain} it uses JacORB's RootPOA instead (an unreplicated baseline serving the same objects). Either way its ORB reads
 * connections through the GIOP message size guard ({@code GiopGuard.orbProperties()}, {@code
 * fts.giop.max_message_size}; a {@code -Djacorb.net.server_socket_factory=...} replaces it).
 *
 * <p>{@code --config FILE} reads ORB properties ({@code fts.*}, {@code OAIAddr}, {@code OAPort}, {@code jacorb.*})
 * from a file over the sample's defaults; {@code -D} system properties override both.
 *
 * <p>{@code --hello-objects N} also activates {@code hello-0} … {@code hello-<N-1>}: one HelloObj per load
 * client, as in the paper's experiment.
 *
 * <p>Prints {@code STARTED} on stdout once its objects are activated (the first replicas of a group then wait
 * for a majority), {@code READY} once it serves, then runs until it is stopped: {@code SIGTERM} leaves the group
 * gracefully ({@code fts.shutdown.leave}), {@code kill -9} is a crash. Standard input is not read, so a replica
 * runs as a service (systemd, {@code nohup}, a container, {@code </dev/null}).
 *
 * <p>{@code --stdin-control} (the launchers and tests) reads commands from stdin and ends the replica when stdin
 * closes, so that no replica outlives the process that started it. A line {@code stats} is answered on stdout
 * with {@code STATS <id> batches=… messages=… delay_n=… delay_sum_ns=… cast_n=… cast_sum_ns=…} (cumulative
 * batching counters; zeros for {@code --plain}).
 */
public final class Replica {
    static final String[] IDS = {"hello", "counter", "account"};

    private Replica() {
    }

    /** {@code mb} megabytes of a deterministic pattern: the same on every replica. */
    private static String ballast(int mb) {
        if (mb == 0) {
            return "";
        }
        StringBuilder b = new StringBuilder(mb << 20);
        for (int i = 0; b.length() < mb << 20; i++) {
            b.append(Integer.toHexString(i * 0x9E3779B1)).append(' ');
        }
        b.setLength(mb << 20);
        return b.toString();
    }

    /**
     * The launcher's commands on stdin: {@code stats}, {@code digest} (the adaptor's state digest), {@code load}
     * (its load and placement), {@code view}
     * (the replica ids of the current group view), and, for
     * tests on JGroups, {@code isolate} / {@code heal} (a partition of this replica: JGroups DISCARD).
     */
    private static void command(String line, String self, BatchStats stats, POA poa) {
        GroupPOA goa = poa instanceof GroupPOA g ? g : null;
        try {
            switch (line) {
                case "stats" -> System.out.println("STATS " + self + " "
                        + (stats == null ? BatchStats.Counters.ZERO : stats.counters()).format());
                case "logstats" -> System.out.println("LOGSTATS " + self + " "
                        + (poa instanceof GroupPOA g && g.logFigures() != null ? g.logFigures() : "none"));
                case "digest" -> System.out.println("DIGEST " + self + " "
                        + (goa == null ? "-" : goa.stateDigest()));
                case "load" -> System.out.println("LOAD " + self + " " + (goa == null ? "-" : goa.load()));
                case "view" -> System.out.println("VIEW " + self + " " + (goa == null ? "" : String.join(",",
                        goa.channel().view().members().stream().map(m -> m.name().split("#")[0]).toList())));
                case "isolate" -> {
                    JGroupsFaults.isolate(goa.channel());
                    System.out.println("ISOLATED " + self);   // in effect from now on
                }
                case "heal" -> {
                    JGroupsFaults.heal(goa.channel());
                    System.out.println("HEALED " + self);
                }
                default -> System.err.println("unknown command: " + line);
            }
        } catch (RuntimeException e) {
            System.err.println(line + " failed: " + e);
        }
        System.out.flush();
    }

    /** Reads commands from stdin; its end (the launcher is gone) ends the replica. */
    private static void stdinControl(String self, BatchStats stats, POA poa) {
        Thread watchdog = new Thread(() -> {
            try {
                BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    command(line.trim(), self, stats, poa);
                }
            } catch (java.io.IOException ignored) {
                // same as EOF
            }
            Runtime.getRuntime().halt(0);
        }, "stdin-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
    }

    public static void main(String[] args) {
        try {
            run(args);
        } catch (Throwable t) {
            // JacORB's threads would keep a failed replica alive: it says why and ends
            System.err.println("replica failed to start: " + t);
            t.printStackTrace();
            System.err.flush();
            Runtime.getRuntime().halt(2);
        }
    }

    private static void run(String[] args) throws Exception {
        boolean plain = false;
        boolean stdinControl = false;
        java.nio.file.Path config = null;
        int helloObjects = 0;
        int ballastMb = 0;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--plain" -> plain = true;
                case "--stdin-control" -> stdinControl = true;
                case "--hello-objects" -> helloObjects = Integer.parseInt(args[++i]);
                case "--ballast-mb" -> ballastMb = Integer.parseInt(args[++i]);
                case "--config" -> config = java.nio.file.Path.of(args[++i]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]
                        + " (use --config FILE, --plain, --stdin-control, --hello-objects N, --ballast-mb N)");
            }
        }
        Properties props = new Properties();
        props.putAll(Clients.orbDefaults());
        props.setProperty("jacorb.implname", "fts");
        props.setProperty("OAIAddr", "127.0.0.1");
        // JacORB answers TRANSIENT beyond 100 queued requests by default; thousands of clients need more. The
        // pool stays at JacORB's 20 threads: 100 and 500 measured slower on 2 cores (docs/performance.md).
        props.setProperty("jacorb.poa.queue_max", "10000");
        // A fixed pool: with min < max, JacORB ends a request thread on release whenever min are idle and starts a
        // new one for the next burst, so under load it starts threads all the time (its BZ946; docs/performance.md).
        props.setProperty("jacorb.poa.thread_pool_min", "20");
        props.setProperty("jacorb.poa.thread_pool_max", "20");
        // A message larger than fts.giop.max_message_size closes its connection before JacORB allocates it.
        props.putAll(GiopGuard.orbProperties());
        if (config != null) {   // a service's settings (docs/deployment.md): over these defaults, under -D
            try (java.io.Reader r = java.nio.file.Files.newBufferedReader(config, StandardCharsets.UTF_8)) {
                props.load(r);
            }
        }
        if (!plain) {
            // the adaptor as an initial reference, configured by the ORB's fts.* settings
            props.setProperty("org.omg.PortableInterceptor.ORBInitializerClass." + GroupPOAInitializer.class.getName(),
                    "");
            props.setProperty("jacorb.orb_initializer.fail_on_error", "on");   // a bad fts.* key fails ORB.init
        }
        props.putAll(System.getProperties());
        ORB orb = ORB.init(new String[0], props);
        POA poa;
        if (plain) {
            POA root = POAHelper.narrow(orb.resolve_initial_references("RootPOA"));
            poa = root.create_POA("FTS-" + props.getProperty("fts.group", "fts"), root.the_POAManager(),
                    new org.omg.CORBA.Policy[] {
                        root.create_lifespan_policy(org.omg.PortableServer.LifespanPolicyValue.PERSISTENT),
                        root.create_id_assignment_policy(org.omg.PortableServer.IdAssignmentPolicyValue.USER_ID)});
        } else {
            poa = POAHelper.narrow(orb.resolve_initial_references("GroupPOA"));   // <- the one line a server changes
        }
        BatchStats stats = poa instanceof GroupPOA g ? g.batchStats() : null;
        String self = props.getProperty("fts.replica.id", "plain");
        if (stdinControl) {
            stdinControl(self, stats, poa);
        }
        Servant[] servants = {new HelloObjImpl(ballast(ballastMb)), new CounterImpl(), new AccountImpl()};
        for (int i = 0; i < IDS.length; i++) {
            poa.activate_object_with_id(IDS[i].getBytes(StandardCharsets.UTF_8), servants[i]);
        }
        List<String> ids = new ArrayList<>(List.of(IDS));
        for (int i = 0; i < helloObjects; i++) {
            String id = "hello-" + i;
            poa.activate_object_with_id(id.getBytes(StandardCharsets.UTF_8), new HelloObjImpl());
            ids.add(id);
        }
        poa.the_POAManager().activate();
        StringBuilder published = new StringBuilder();
        for (String id : ids) {   // the references clients use (object group references, unless --plain)
            published.append("IOGR ").append(id).append(' ')
                    .append(orb.object_to_string(poa.id_to_reference(id.getBytes(StandardCharsets.UTF_8))))
                    .append('\n');
        }
        System.out.print(published);
        String announce = props.getProperty("fts.replica.id", "plain") + " " + props.getProperty("OAPort");
        System.out.println("STARTED " + announce);
        System.out.flush();
        if (poa instanceof GroupPOA goa) {
            // The first replicas to start wait for a majority; the launcher learns when this one serves.
            Thread serving = new Thread(() -> {
                try {
                    while (!goa.awaitServing(java.time.Duration.ofMinutes(10))) {
                        System.err.println("replica " + self + " does not serve yet: it " + goa.notServing());
                    }
                    System.out.println("READY " + announce);
                    System.out.flush();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "serving-reporter");
            serving.setDaemon(true);
            serving.start();
        } else {
            System.out.println("READY " + announce);
            System.out.flush();
        }
        orb.run();
    }
}
