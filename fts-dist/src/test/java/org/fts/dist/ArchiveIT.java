package org.fts.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import com.example.kv.KvServants;
import org.fts.process.GuideScript;
import org.fts.process.Ports;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import kv.Store;
import kv.StoreHelper;
import org.omg.CORBA.ORB;

/**
 * The distribution as a user meets it: {@code fts-<version>.tar.gz} unpacked into a temporary directory, the
 * kv-store example's jar added to {@code lib/}, three replicas on three loopback addresses (127.0.0.2-4, the same
 * ports on each, as on three hosts) started with {@code bin/fts replica} from there (not from the source tree),
 * {@code bin/fts status --config} with one replica's file until the group serves, calls through the object group
 * reference the runner wrote, and {@code SIGTERM} for each replica. Every process is reaped by its PID.
 */
class ArchiveIT {
    private final List<Process> started = new ArrayList<>();
    private ORB orb;

    @AfterEach
    void reap() throws InterruptedException {
        if (orb != null) {
            orb.shutdown(false);
        }
        for (Process p : started) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
        }
    }

    /** Three hosts, as loopback addresses: each replica binds IIOP, JGroups and its probe to its own. */
    private static final List<String> HOSTS = List.of("127.0.0.2", "127.0.0.3", "127.0.0.4");

    /** Runs {@code bin/fts args...} to its end (bounded), returning its exit status and output. */
    private static Map.Entry<Integer, String> run(Path home, Path log, String... args) throws Exception {
        return run(home, log, Map.of(), args);
    }

    /** {@link #run(Path, Path, String...)} with more environment variables. */
    private static Map.Entry<Integer, String> run(Path home, Path log, Map<String, String> env, String... args)
            throws Exception {
        List<String> cmd = new ArrayList<>(List.of(home.resolve("bin/fts").toString()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(log.getParent().toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile());
        pb.environment().putAll(env);
        Process p = pb.start();
        try {
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "bin/fts " + String.join(" ", args) + " ended");
        } finally {
            p.destroyForcibly();
        }
        return Map.entry(p.exitValue(), Files.readString(log));
    }

    /** The archive unpacked into a fresh directory under target/: its top directory. */
    static Path unpack(Path tmp) throws Exception {
        Path archive = Path.of(System.getProperty("fts.dist.archive"));
        assertTrue(Files.isRegularFile(archive), archive + " exists (mvn package)");
        Process untar = new ProcessBuilder("tar", "xzf", archive.toAbsolutePath().toString(), "-C", tmp.toString())
                .inheritIO().start();
        assertTrue(untar.waitFor(60, TimeUnit.SECONDS) && untar.exitValue() == 0, "tar xzf");
        try (Stream<Path> top = Files.list(tmp)) {
            return top.filter(Files::isDirectory).findFirst().orElseThrow();
        }
    }

    /**
     * The archive's README's "Try it" lines, run as a new user would, from the unpacked archive: three replicas of
     * the example store start on 127.0.0.1, the demo's 40 calls are all answered though the replica its client is
     * connected to is killed with {@code kill -9}, a second {@code try start} brings that replica back, and the group
     * stops. Every replica is reaped by its PID.
     */
    @Test
    void theReadmesLocalTrialStartsAGroupThatAnswersThroughACrash() throws Exception {
        Path tmp = Files.createTempDirectory(Path.of("target"), "archive-try-").toAbsolutePath();
        Path home = unpack(tmp);
        List<String> lines = Files.readAllLines(home.resolve("README")).stream().map(String::trim)
                .filter(l -> l.startsWith("bin/fts try ")).map(l -> l.replaceAll("\\s+#.*$", "")).toList();
        assertEquals(List.of("bin/fts try start", "bin/fts try demo", "bin/fts try stop"), lines);
        try {
            Map.Entry<Integer, String> start = run(home, tmp.resolve("start.out"), "try", "start");
            assertEquals(0, start.getKey(), start.getValue());
            assertTrue(start.getValue().contains("three replicas serve the store"), start.getValue());
            Map.Entry<Integer, String> demo = run(home, tmp.resolve("demo.out"), "try", "demo");
            assertEquals(0, demo.getKey(), demo.getValue());
            assertTrue(demo.getValue().contains("kill -9 of replica 1"), demo.getValue());
            assertTrue(demo.getValue().contains("40 of 40 calls answered"), demo.getValue());
            assertTrue(demo.getValue().contains("call 40: put key-40, read back 'value-40'"), demo.getValue());
            // start again while two trial replicas live: it brings back the one the demo killed, and keeps the
            // live ones' references (each writes its own once)
            Map.Entry<Integer, String> again = run(home, tmp.resolve("again.out"), "try", "start");
            assertEquals(0, again.getKey(), again.getValue());
            assertTrue(again.getValue().contains("three replicas serve the store"), again.getValue());
            Map.Entry<Integer, String> stop = run(home, tmp.resolve("stop.out"), "try", "stop");
            assertEquals(0, stop.getKey(), stop.getValue());
        } finally {
            for (int n = 1; n <= 3; n++) {   // whatever happened, no replica outlives the test
                Path pid = home.resolve("run/try/r" + n + ".pid");
                if (Files.isRegularFile(pid)) {
                    ProcessHandle.of(Long.parseLong(Files.readString(pid).trim())).ifPresent(h -> {
                        h.destroyForcibly();
                        h.onExit().orTimeout(10, TimeUnit.SECONDS).exceptionally(t -> h).join();
                    });
                }
            }
        }
        for (int n = 1; n <= 3; n++) {
            Path pid = home.resolve("run/try/r" + n + ".pid");
            assertTrue(!Files.exists(pid), "try stop removed " + pid);
        }
    }

    /**
     * {@code fts cds} makes the class-data archive of lib/ (it runs the trial group for a few seconds to learn the
     * classes a replica loads), and the JVMs the launcher starts then map it: with {@code -Xshare:on} a JVM that
     * cannot map it refuses to start, so {@code fts config} answering proves the mapping (every command of the
     * launcher passes the same options).
     */
    @Test
    void theClassDataArchiveIsMadeAndTheLaunchersJvmsMapIt() throws Exception {
        Path tmp = Files.createTempDirectory(Path.of("target"), "archive-cds-").toAbsolutePath();
        Path home = unpack(tmp);
        try {
            Map.Entry<Integer, String> cds = run(home, tmp.resolve("cds.out"), "cds");
            assertEquals(0, cds.getKey(), cds.getValue());
            assertTrue(Files.size(home.resolve("lib/fts.jsa")) > 1_000_000, cds.getValue());
            Map.Entry<Integer, String> config = run(home, tmp.resolve("config.out"),
                    Map.of("JAVA_OPTS", "-Xmx256m -Xshare:on"), "config");
            assertEquals(0, config.getKey(), config.getValue());
            assertTrue(config.getValue().contains("| `fts.group` |"), config.getValue());
        } finally {
            for (String dir : List.of("run/cds", "run/try")) {   // no replica outlives the test
                for (int n = 1; n <= 3; n++) {
                    Path pid = home.resolve(dir + "/r" + n + ".pid");
                    if (Files.isRegularFile(pid)) {
                        ProcessHandle.of(Long.parseLong(Files.readString(pid).trim())).ifPresent(h -> {
                            h.destroyForcibly();
                            h.onExit().orTimeout(10, TimeUnit.SECONDS).exceptionally(t -> h).join();
                        });
                    }
                }
            }
        }
    }

    @Test
    void threeReplicasRunFromTheUnpackedArchiveWithAShopsServants() throws Exception {
        Path tmp = Files.createTempDirectory(Path.of("target"), "archive-it-").toAbsolutePath();
        Path home = unpack(tmp);
        assertTrue(Files.isExecutable(home.resolve("bin/fts")));
        for (String f : List.of("LICENSE", "README", "config/fts.properties", "config/client.properties",
                "config/fts-replica@.service", "config/simplelogger.properties", "examples/local/replica-1.properties",
                "examples/local/client.properties")) {
            assertTrue(Files.isRegularFile(home.resolve(f)), f + " is in the archive");
        }
        // the docs the README points to, every one of the source tree's (not the benchmark journals)
        List<String> docs;
        try (Stream<Path> d = Files.list(Path.of("..", "docs"))) {
            docs = d.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".md")).sorted().toList();
        }
        assertTrue(docs.contains("deployment.md") && docs.contains("upgrades.md"), docs.toString());
        for (String doc : docs) {
            assertTrue(Files.isRegularFile(home.resolve("docs").resolve(doc)), "docs/" + doc + " is in the archive");
        }
        List<String> jars;
        try (Stream<Path> lib = Files.list(home.resolve("lib"))) {
            jars = lib.map(p -> p.getFileName().toString()).sorted().toList();
        }
        assertTrue(jars.stream().anyMatch(j -> j.startsWith("fts-replica-")), jars.toString());
        assertTrue(jars.stream().noneMatch(j -> j.matches(
                "(loadtest|samples|fts-testkit|fts-process|grinder|junit|xchart|HdrHistogram|jython).*")),
                "no benchmark, chaos or test code ships: " + jars);

        for (String j : jars.stream().filter(j -> j.startsWith("fts-")).toList()) {
            try (java.util.jar.JarFile jar = new java.util.jar.JarFile(home.resolve("lib").resolve(j).toFile())) {
                String name = jar.getManifest().getMainAttributes().getValue("Automatic-Module-Name");
                assertTrue(name != null && name.matches("org\\.fts(\\.[a-z]+)+"),
                        j + ": Automatic-Module-Name " + name);
            }
        }

        // the shop's servants: the kv-store example's jar, dropped into lib/
        Path kvJar = Path.of(KvServants.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        assertTrue(Files.isRegularFile(kvJar), "the kv-store example is packaged: " + kvJar);
        Files.copy(kvJar, home.resolve("lib").resolve(kvJar.getFileName()));

        String group = "kv-" + UUID.randomUUID().toString().substring(0, 6);
        int iiop = Ports.freeOnEvery(HOSTS);   // the same port on every host, as in the shipped configuration
        int tcp = Ports.freeOnEvery(HOSTS);
        int probe = Ports.freeOnEvery(HOSTS);
        StringBuilder replicas = new StringBuilder();
        StringBuilder hosts = new StringBuilder();
        for (int i = 0; i < 3; i++) {
            replicas.append(i == 0 ? "" : ",").append(HOSTS.get(i)).append(':').append(iiop);
            hosts.append(i == 0 ? "" : ",").append(HOSTS.get(i)).append('[').append(tcp).append(']');
        }
        for (int i = 0; i < 3; i++) {
            // the shipped configuration, edited as an operator would for one host of three
            Properties p = new Properties();
            try (var r = Files.newBufferedReader(home.resolve("config/fts.properties"), StandardCharsets.UTF_8)) {
                p.load(r);
            }
            p.remove("fts.jgroups.keystore");            // loopback addresses: group traffic need not be encrypted
            p.remove("fts.jgroups.keystore_password_file");
            Path passcode = tmp.resolve("admin.passcode");   // as the install step makes /etc/fts/admin.passcode
            Files.writeString(passcode, "the operators' passcode of this test\n");
            p.setProperty("fts.admin.passcode_file", passcode.toString());
            p.setProperty("OAIAddr", HOSTS.get(i));
            p.setProperty("OAPort", Integer.toString(iiop));
            p.setProperty("fts.group", group);
            p.setProperty("fts.replica.id", "kv" + i);
            p.setProperty("fts.replicas", replicas.toString());
            p.setProperty("fts.jgroups.bind_addr", HOSTS.get(i));
            p.setProperty("fts.jgroups.tcp_port", Integer.toString(tcp));
            p.setProperty("fts.jgroups.port_range", "0");
            p.setProperty("fts.jgroups.initial_hosts", hosts.toString());
            p.setProperty("fts.jgroups.probe_port", Integer.toString(probe));
            p.setProperty("fts.replica.ior_dir", tmp.resolve("ior").toString());
            Path cfg = tmp.resolve("kv" + i + ".properties");
            try (OutputStream o = Files.newOutputStream(cfg)) {
                p.store(o, "replica kv" + i);
            }
            ProcessBuilder pb = new ProcessBuilder(home.resolve("bin/fts").toString(), "replica", "--config",
                    cfg.toString()).directory(tmp.toFile()).redirectErrorStream(true)
                    .redirectOutput(tmp.resolve("kv" + i + ".log").toFile());
            pb.environment().put("JAVA_OPTS", "-Xmx256m");
            started.add(pb.start());
        }

        // bin/fts status, as a health check would run it, until the group serves (bounded)
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        Map.Entry<Integer, String> status;
        do {
            // pointed at the group as an operator would: with a replica's own configuration file
            status = run(home, tmp.resolve("status.log"), "status", "--config",
                    tmp.resolve("kv0.properties").toString());
            for (int i = 0; i < 3; i++) {
                assertTrue(started.get(i).isAlive(), "replica kv" + i + " runs: "
                        + Files.readString(tmp.resolve("kv" + i + ".log")));
            }
        } while (status.getKey() != 0 && System.nanoTime() < deadline);
        assertEquals(0, status.getKey(), status.getValue());
        assertTrue(status.getValue().contains("SERVING, 3 of 3 replicas serve"), status.getValue());

        // the runner found the shop's provider, and wrote the object's group reference once it served
        assertTrue(Files.readString(tmp.resolve("kv0.log")).contains("servant provider 'kv' activated"));
        Path ior = tmp.resolve("ior/store.ior");
        assertTrue(Files.isRegularFile(ior), "the runner wrote " + ior);
        Properties client = new Properties();
        try (var r = Files.newBufferedReader(home.resolve("config/client.properties"), StandardCharsets.UTF_8)) {
            client.load(r);
        }
        client.setProperty("org.omg.CORBA.ORBClass", "org.jacorb.orb.ORB");
        client.setProperty("org.omg.CORBA.ORBSingletonClass", "org.jacorb.orb.ORBSingleton");
        orb = ORB.init(new String[0], client);
        Store store = StoreHelper.narrow(orb.string_to_object(Files.readString(ior).trim()));
        store.put("a", "1");
        store.put("b", "2");
        assertEquals("1", store.put("a", "3"));
        assertEquals(2, store.size());

        // SIGTERM each replica: it leaves the group gracefully and its JVM ends (143 = 128 + SIGTERM)
        for (int i = 2; i >= 0; i--) {
            Process p = started.get(i);
            p.destroy();
            assertTrue(p.waitFor(30, TimeUnit.SECONDS), "kv" + i + " ends on SIGTERM");
            assertTrue(p.exitValue() == 143 || p.exitValue() == 0, "kv" + i + " exit " + p.exitValue());
            String log = Files.readString(tmp.resolve("kv" + i + ".log"));
            assertTrue(log.contains("replica kv" + i + " leaves group " + group), log);
            if (i == 2) {
                assertEquals("3", store.get("a"), "the others still serve");
            }
        }
    }

    /**
     * docs/guide.md's steps 9 and 10, the bank, from the unpacked archive's {@code examples/bank} as the guide says:
     * the same lines less {@code mvn} and {@code cd}, the scripts finding the example's jar and the archive's
     * {@code lib/}, and {@code ../../bin/fts status} the archive's launcher. The bank serves, a client survives
     * {@code kill -9} of each bank replica in turn, and each line prints what its comment says, as in {@code
     * BankGuideIT}. Every process is reaped by its PID ({@link GuideScript#close}).
     */
    @Test
    void theGuidesBankRunsFromTheArchiveThroughAKillOfEachReplica() throws Exception {
        Path tmp = Files.createTempDirectory(Path.of("target"), "archive-bank-").toAbsolutePath();
        Path bank = unpack(tmp).resolve("examples/bank");
        for (String f : List.of("fts-example-bank.jar", "run-bank.sh", "run-audit.sh", "run-client.sh", "classpath.sh",
                "config/bank-1.properties", "config/audit-plain.properties", "config/client.properties")) {
            assertTrue(Files.isRegularFile(bank.resolve(f)), "examples/bank/" + f + " is in the archive");
        }
        try (GuideScript script = GuideScript.fromGuide(Path.of("..", "docs", "guide.md"), tmp.resolve("guide.pids"),
                "## 9.", "## 10.")) {
            int exit = script.run(bank, Map.of(), tmp.resolve("guide.out"), tmp.resolve("guide.err"),
                    Duration.ofSeconds(300));
            String said = Files.readString(tmp.resolve("guide.out"));
            assertEquals(0, exit, "the guide's steps, from the archive (-1: not ended in 300 s):\n" + script.script()
                    + "\nprinted:\n" + said + "\nstderr: " + tmp.resolve("guide.err"));
            List<String> printed = GuideScript.printed(tmp.resolve("guide.out"));
            assertTrue(script.matches(printed), "what the guide says each call prints:\n" + script.expected()
                    + "\nprinted:\n" + printed);
        }
    }
}
