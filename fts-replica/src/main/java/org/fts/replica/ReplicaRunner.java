package org.fts.replica;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.ServiceLoader;

import org.fts.config.ConfigException;
import org.fts.config.ConfigKeys;
import org.fts.goa.GroupPOA;
import org.fts.goa.GroupPOAInitializer;
import org.fts.goa.frontend.FrontEnd;
import org.fts.goa.giop.GiopGuard;
import org.omg.CORBA.ORB;
import org.omg.PortableServer.POA;
import org.omg.PortableServer.POAHelper;
import org.omg.PortableServer.Servant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The shipped replica: a JacORB ORB whose adaptor is the Group Object Adaptor, hosting the servants of every
 * {@link ServantProvider} on the class path. {@code bin/fts-replica --config FILE} runs it; {@code SIGTERM} leaves
 * the group gracefully ({@code fts.shutdown.leave}), {@code kill -9} is a crash. It never reads stdin.
 *
 * <p>Configuration: ORB properties ({@code OAIAddr}, {@code OAPort}, {@code jacorb.*}, {@code fts.*}) from the
 * {@code --config} file over {@link #orbProperties defaults}, under {@code -D} system properties. Once the replica
 * serves, each object's group reference is written to {@code fts.replica.ior_dir} (if set) as {@code <id>.ior}.
 */
public final class ReplicaRunner {
    private static final Logger LOG = LoggerFactory.getLogger(ReplicaRunner.class);

    /** A started replica. */
    public record Running(ORB orb, POA poa, Map<String, String> references) {
    }

    private ReplicaRunner() {
    }

    /**
     * The runner's ORB properties: JacORB, UTF-8, a fixed request pool of 20 threads and a queue of 10,000
     * (docs/performance.md), the GIOP message size guard, the adaptor's initializer (a bad {@code fts.*} key
     * fails ORB.init), with {@code config} over them.
     */
    public static Properties orbProperties(Properties config) {
        Properties p = new Properties();
        p.setProperty("org.omg.CORBA.ORBClass", "org.jacorb.orb.ORB");
        p.setProperty("org.omg.CORBA.ORBSingletonClass", "org.jacorb.orb.ORBSingleton");
        p.setProperty("jacorb.native_char_codeset", "UTF8");
        p.setProperty("jacorb.log.default.verbosity", "0");
        p.setProperty("jacorb.implname", "fts");
        p.setProperty("OAIAddr", "127.0.0.1");
        p.setProperty("jacorb.poa.queue_max", "10000");
        p.setProperty("jacorb.poa.thread_pool_min", "20");
        p.setProperty("jacorb.poa.thread_pool_max", "20");
        p.putAll(GiopGuard.orbProperties());
        p.setProperty("org.omg.PortableInterceptor.ORBInitializerClass." + GroupPOAInitializer.class.getName(), "");
        // Servants' calls to object groups fail over, and carry their request's identity (nested invocations)
        p.setProperty("org.omg.PortableInterceptor.ORBInitializerClass."
                + org.fts.ft.client.FtClientInitializer.class.getName(), "");
        p.setProperty("jacorb.orb_initializer.fail_on_error", "on");
        p.putAll(config);
        if (ReplicaKeys.LISTENER.get(p).equals("goa") && !p.containsKey(FrontEnd.PORT.name())) {
            // the endpoint is the adaptor's listener's, JacORB takes a port of its own choosing (over a -DOAPort
            // too); a TLS-only replica's endpoint is its TLS port, and the adaptor's listener speaks TLS there
            String key = given(p, "OAPort") ? "OAPort" : given(p, "OASSLPort") ? "OASSLPort" : null;
            if (key != null) {
                p.setProperty(FrontEnd.PORT.name(), p.getProperty(key).trim());
                p.setProperty(key, "0");
            }
        }
        return p;
    }

    private static boolean given(Properties p, String key) {
        String v = p.getProperty(key);
        return v != null && !v.isBlank() && !v.trim().equals("0");
    }

    /**
     * Starts a replica: the ORB, the adaptor, every selected provider's objects, then the POA manager. Returns once
     * the objects are active; the first replicas of a group serve once a majority has started ({@link
     * GroupPOA#awaitServing}).
     *
     * @throws ConfigException naming the key if the configuration is invalid
     */
    public static Running start(Properties config) throws Exception {
        Properties props = orbProperties(config);
        ConfigKeys.validateAndLog(LOG, "replica runner", props, ReplicaKeys.KEYS);
        ORB orb = ORB.init(new String[0], props);
        POA poa = POAHelper.narrow(orb.resolve_initial_references("GroupPOA"));
        Map<String, Servant> objects = activateProviders(orb, poa, props);
        poa.the_POAManager().activate();
        return new Running(orb, poa, references(orb, poa, objects.keySet()));
    }

    /** The stringified references of objects {@code ids} on {@code poa} (object group references on the GOA). */
    public static Map<String, String> references(ORB orb, POA poa, java.util.Collection<String> ids)
            throws Exception {
        Map<String, String> refs = new LinkedHashMap<>();
        for (String id : ids) {
            refs.put(id, orb.object_to_string(poa.id_to_reference(id.getBytes(StandardCharsets.UTF_8))));
        }
        return refs;
    }

    /**
     * Activates the objects of every provider that {@code fts.replica.servants} selects (all found when empty) on
     * {@code poa}, in name order.
     *
     * @throws ConfigException if a named provider is not on the class path, or none is found
     */
    public static Map<String, Servant> activateProviders(ORB orb, POA poa, Properties config) throws Exception {
        Map<String, ServantProvider> found = new java.util.TreeMap<>();
        for (ServantProvider p : ServiceLoader.load(ServantProvider.class, ReplicaRunner.class.getClassLoader())) {
            found.put(p.name(), p);
        }
        List<String> wanted = ReplicaKeys.SERVANTS.get(config);
        List<ServantProvider> chosen = new ArrayList<>();
        for (String name : wanted.isEmpty() ? found.keySet() : wanted) {
            ServantProvider p = found.get(name);
            if (p == null) {
                throw new ConfigException(ReplicaKeys.SERVANTS.name(), "names provider '" + name
                        + "', which is not on the class path (found " + found.keySet() + ")");
            }
            chosen.add(p);
        }
        if (chosen.isEmpty()) {
            throw new ConfigException(ReplicaKeys.SERVANTS.name(), "is empty and no " + ServantProvider.class.getName()
                    + " is on the class path: add your servants' jar (docs/guide.md)");
        }
        Servants servants = new Servants(orb, poa, config);
        for (ServantProvider p : chosen) {
            try {
                p.activate(servants);
            } catch (Exception e) {
                throw new IllegalStateException("servant provider '" + p.name() + "' failed: " + e, e);
            }
            LOG.info("servant provider '{}' activated; objects now {}", p.name(), servants.activated().keySet());
        }
        return servants.activated();
    }

    /** Writes each reference to {@code dir/<id>.ior}, atomically. */
    public static void writeReferences(Path dir, Map<String, String> refs) throws IOException {
        Files.createDirectories(dir);
        for (Map.Entry<String, String> e : refs.entrySet()) {
            Path file = dir.resolve(e.getKey() + ".ior");
            Path tmp = dir.resolve(e.getKey() + ".ior.tmp");
            Files.writeString(tmp, e.getValue() + "\n", StandardCharsets.US_ASCII);
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        }
    }

    /** {@code --config FILE} (repeatable, later files win) and {@code -D} system properties over them. */
    static Properties config(String[] args) throws IOException {
        Properties props = new Properties();
        for (int i = 0; i < args.length; i++) {
            if ("--config".equals(args[i]) && i + 1 < args.length) {
                try (Reader r = Files.newBufferedReader(Path.of(args[++i]), StandardCharsets.UTF_8)) {
                    props.load(r);
                }
            } else {
                throw new IllegalArgumentException("unknown argument '" + args[i] + "' (usage: --config FILE ...)");
            }
        }
        props.putAll(System.getProperties());
        return props;
    }

    public static void main(String[] args) {
        Properties config;
        try {
            config = config(args);
        } catch (IOException | IllegalArgumentException e) {
            // no configuration to start from (a missing or unreadable --config file, a wrong argument): a refusal
            stop(REFUSED, e);
            return;
        }
        try {
            Properties props = orbProperties(config);
            Running r = start(config);
            String id = props.getProperty("fts.replica.id", "?");
            if (r.poa() instanceof GroupPOA g) {
                while (!g.awaitServing(Duration.ofMinutes(1))) {
                    LOG.warn("replica {} does not serve yet: it {}", id, g.notServing());
                }
            }
            String dir = ReplicaKeys.IOR_DIR.get(props);
            if (dir != null && !dir.isEmpty()) {
                writeReferences(Path.of(dir), r.references());
            }
            LOG.info("replica {} serves {}", id, r.references().keySet());
            r.orb().run();
        } catch (Throwable t) {
            stop(exitStatus(t), t);
        }
    }

    /** A start that did not succeed: says why and ends (JacORB's threads would keep the JVM alive). */
    private static void stop(int status, Throwable why) {
        if (status == REFUSED) {
            LOG.error("replica refused to start (exit status {}: starting it again changes nothing until its "
                    + "configuration does): {}", status, why.toString(), why);
        } else {
            LOG.error("replica failed to start (exit status {}): {}", status, why.toString(), why);
        }
        Runtime.getRuntime().halt(status);
    }

    /**
     * A start that cannot succeed until the configuration changes: a missing or unreadable configuration file, a wrong
     * argument, a key with a bad value, or settings that differ from the serving group's ({@link ConfigException} as
     * the cause). The shipped systemd unit does not restart it
     * ({@code RestartPreventExitStatus=2}).
     */
    static final int REFUSED = 2;
    /** Any other failed start (a port still taken, a group that did not answer): a restart may succeed. */
    static final int FAILED = 1;

    /**
     * {@link #REFUSED} if a {@link ConfigException} caused {@code t}, else {@link #FAILED} (an address that could not
     * be bound, {@link org.fts.config.ListenFailure}, included). JacORB reports an ORB initializer's exception as an
     * {@code INITIALIZE} that carries it only in its message, which then starts with the exception's class name.
     */
    static int exitStatus(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof ConfigException || c instanceof org.omg.CORBA.INITIALIZE && c.getMessage() != null
                    && c.getMessage().startsWith(ConfigException.class.getName() + ":")) {
                return REFUSED;
            }
        }
        return FAILED;
    }
}
