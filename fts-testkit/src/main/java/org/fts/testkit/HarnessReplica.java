package org.fts.testkit;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Properties;

import org.fts.jgroups.JGroupsFaults;
import org.fts.goa.GroupPOA;
import org.fts.goa.GroupPOAInitializer;
import org.fts.replica.ReplicaRunner;
import org.omg.CORBA.ORB;
import org.omg.PortableServer.POA;
import org.omg.PortableServer.POAHelper;

/**
 * The harness's replica: the shipped runner ({@link ReplicaRunner}, every {@link org.fts.replica.ServantProvider}
 * on the class path) plus what only tests, benchmarks and the demo need. It is not in the distribution.
 *
 * <ul>
 *   <li>{@code --stdin-control}: reads commands from stdin (below) and ends the replica when stdin closes, so that
 *       no replica outlives the process that started it;</li>
 *   <li>{@code --plain}: JacORB's own POA instead of the adaptor, serving the same objects (the unreplicated
 *       baseline of the benchmarks);</li>
 *   <li>{@code --hello-objects N}, {@code --ballast-mb N}: passed to the sample servants as {@code
 *       samples.hello_objects} and {@code samples.ballast_mb};</li>
 *   <li>{@code --config FILE}: ORB properties over the runner's defaults, under {@code -D}.</li>
 * </ul>
 *
 * <p>Prints {@code IOGR <id> <ior>} for each object and {@code STARTED <id> <port>} once its objects are active,
 * {@code READY <id> <port>} once it serves. {@code SIGTERM} leaves the group gracefully, {@code kill -9} is a crash.
 */
public final class HarnessReplica {
    private HarnessReplica() {
    }

    /**
     * The launcher's commands on stdin: {@code digest} (the adaptor's state digest), {@code view} (the replica ids of
     * the current group view), and, for tests on JGroups, {@code isolate} / {@code heal} (a partition of this replica:
     * JGroups DISCARD). Figures (load, log, batching, reads) are read over JMX, never printed here.
     */
    private static void command(String line, String self, String group, POA poa) {
        GroupPOA goa = poa instanceof GroupPOA g ? g : null;
        try {
            switch (line) {
                case "digest" -> System.out.println("DIGEST " + self + " "
                        + (goa == null ? "-" : goa.stateDigest()));
                case "view" -> System.out.println("VIEW " + self + " " + (goa == null ? "" : String.join(",",
                        channel(group, self).view().members().stream().map(m -> m.replica()).toList())));
                case "isolate" -> {
                    JGroupsFaults.isolate(channel(group, self));
                    System.out.println("ISOLATED " + self);   // in effect from now on
                }
                case "heal" -> {
                    JGroupsFaults.heal(channel(group, self));
                    System.out.println("HEALED " + self);
                }
                default -> System.err.println("unknown command: " + line);
            }
        } catch (RuntimeException e) {
            System.err.println(line + " failed: " + e);
        }
        System.out.flush();
    }

    /** The group channel this replica's adaptor joined with (the test kit's record of the channels made here). */
    private static org.fts.gc.GroupChannel channel(String group, String self) {
        return org.fts.gc.OpenChannels.of(group, self);
    }

    /**
     * Reads commands from stdin from the start (before the adaptor exists, a command finds no adaptor and fails);
     * its end (the launcher is gone) ends the replica.
     */
    private static void stdinControl(String self, String group, java.util.concurrent.atomic.AtomicReference<POA> poa) {
        Thread watchdog = new Thread(() -> {
            try {
                BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    command(line.trim(), self, group, poa.get());
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
        Properties config = new Properties();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--plain" -> plain = true;
                case "--stdin-control" -> stdinControl = true;
                case "--hello-objects" -> config.setProperty("samples.hello_objects", args[++i]);
                case "--ballast-mb" -> config.setProperty("samples.ballast_mb", args[++i]);
                case "--config" -> {
                    try (java.io.Reader r = java.nio.file.Files.newBufferedReader(java.nio.file.Path.of(args[++i]),
                            StandardCharsets.UTF_8)) {
                        config.load(r);
                    }
                }
                default -> throw new IllegalArgumentException("unknown option " + args[i]
                        + " (use --config FILE, --plain, --stdin-control, --hello-objects N, --ballast-mb N)");
            }
        }
        config.putAll(System.getProperties());
        Properties props = ReplicaRunner.orbProperties(config);
        String self = props.getProperty("fts.replica.id", "plain");
        java.util.concurrent.atomic.AtomicReference<POA> adaptor = new java.util.concurrent.atomic.AtomicReference<>();
        if (stdinControl) {
            stdinControl(self, props.getProperty("fts.group", "fts"), adaptor);
        }
        ORB orb;
        POA poa;
        Map<String, String> refs;
        if (plain) {
            props.remove("org.omg.PortableInterceptor.ORBInitializerClass." + GroupPOAInitializer.class.getName());
            orb = ORB.init(new String[0], props);
            POA root = POAHelper.narrow(orb.resolve_initial_references("RootPOA"));
            poa = root.create_POA("FTS-" + props.getProperty("fts.group", "fts"), root.the_POAManager(),
                    new org.omg.CORBA.Policy[] {
                        root.create_lifespan_policy(org.omg.PortableServer.LifespanPolicyValue.PERSISTENT),
                        root.create_id_assignment_policy(org.omg.PortableServer.IdAssignmentPolicyValue.USER_ID)});
            Map<String, org.omg.PortableServer.Servant> objects = ReplicaRunner.activateProviders(orb, poa, props);
            poa.the_POAManager().activate();
            refs = ReplicaRunner.references(orb, poa, objects.keySet());
        } else {
            ReplicaRunner.Running r = ReplicaRunner.start(config);
            orb = r.orb();
            poa = r.poa();
            refs = r.references();
        }
        adaptor.set(poa);
        StringBuilder published = new StringBuilder();
        refs.forEach((id, ior) -> published.append("IOGR ").append(id).append(' ').append(ior).append('\n'));
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
