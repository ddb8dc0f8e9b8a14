package org.fts.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Properties;
import java.util.UUID;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

import fts_samples.Counter;
import fts_samples.CounterHelper;
import org.fts.gc.WireVersion;
import org.fts.process.Waits;
import org.fts.testkit.ReplicaCluster;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.omg.CORBA.ORB;

/**
 * A rolling upgrade across a wire-version change, with real parts (docs/upgrades.md): three replica JVMs of this
 * build serve FT clients; one at a time, each is stopped (SIGTERM) and started again on a second artifact, this
 * build's {@code fts-gc-interface} with its wire versions raised to 1-2 (the resource a release raises; version 2's
 * format change, a checksum on every batch, is spoken only once the group moves there). While builds mix, the group
 * speaks 1; once the last replica runs the new build, it moves to 2 by itself. A replica of the old build started then
 * is refused (exit status 2), naming both versions. Every answered increment is executed once and the digests agree.
 *
 * <p>The suite runs the default binding, jgroups, with the log (so the downgrade from a log is checked too), to keep
 * the suite within its time; {@code -Dfts.test.upgrade.every=true} runs both bindings in both modes
 * (docs/upgrades.md has their figures).
 */
class RollingUpgradeProcessTest {
    private ReplicaCluster cluster;
    private ORB ft;
    private ORB plain;

    static Stream<String> setups() {
        return Boolean.getBoolean("fts.test.upgrade.every")
                ? Stream.of("jgroups memory", "jgroups log", "raft memory", "raft log")
                : Stream.of("jgroups log");
    }

    @AfterEach
    void stop() {
        for (ORB o : new ORB[] {ft, plain}) {
            if (o != null) {
                o.shutdown(false);
            }
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @ParameterizedTest
    @MethodSource("setups")
    void theGroupMovesToTheNextWireVersionOnceTheLastReplicaRunsTheNewBuild(String setup) throws Exception {
        String binding = setup.split(" ")[0];
        String durability = setup.split(" ")[1];
        assertEquals(1, WireVersion.highest(), "this build speaks wire version 1; the next one 1-2");
        Path next = nextBuild();
        Path data = Files.createTempDirectory(Path.of("target"), "upgrade-");
        List<String> options = new ArrayList<>(List.of("-Dfts.durability=" + durability,
                "-Dfts.durability.dir=" + data.toAbsolutePath()));
        if (binding.equals("raft")) {
            options.addAll(List.of("-Dfts.gc=raft", "-Dfts.gc.raft.members=r0,r1,r2"));
        }
        cluster = new ReplicaCluster("up-" + UUID.randomUUID().toString().substring(0, 6), 3, false, options,
                Path.of("target", "child-logs"));
        ft = ORB.init(new String[0], Clients.ftDefaults());
        Properties p = Clients.orbDefaults();
        p.setProperty("jacorb.retries", "0");
        plain = ORB.init(new String[0], p);
        CounterLoad load = new CounterLoad(ft, cluster.reference("counter"), 4);
        load.awaitMore(100, "three replicas of this build");
        assertWire(List.of(0, 1, 2), "1", "every replica of this build");
        for (int i = 0; i < 3; i++) {
            cluster.terminate(i);
            OptionalInt exit = cluster.awaitExit(i, Duration.ofSeconds(30));
            assertTrue(exit.isPresent(), "r" + i + " stops on SIGTERM");
            cluster.build(i, next.toString());
            cluster.restart(i, List.of());
            load.awaitMore(100, "r0..r" + i + " on the next build");
            if (i < 2) {   // builds mix: the group speaks the version every member speaks, and sends it
                assertWire(List.of(0, 1, 2), "1", (i + 1) + " of 3 upgraded");
                for (int k = 0; k < 3; k++) {
                    assertEquals("1", status(k).get("wire_sent"), "r" + k + " sends version-1 batches");
                }
                assertEquals("1-2", status(i).get("wire_speaks"));
                assertEquals("1-1", status(2).get("wire_speaks"));
            }
        }
        Waits.await(() -> List.of(0, 1, 2).stream().allMatch(i -> "2".equals(status(i).get("wire"))
                && "2".equals(status(i).get("wire_sent"))), Duration.ofSeconds(30),
                () -> "the group moves to wire version 2 once every replica speaks it, and sends version-2 batches");
        load.awaitMore(200, "the group at wire version 2");
        if (durability.equals("log")) {
            // a downgrade: r2 started on the old build from its own log, which holds version-2 batches (or a
            // checkpoint at 2), stops with exit status 2 before it serves; on the new build again, it serves
            cluster.terminate(2);
            assertTrue(cluster.awaitExit(2, Duration.ofSeconds(30)).isPresent(), "r2 stops on SIGTERM");
            cluster.build(2, "");
            cluster.relaunch(2, List.of());
            assertEquals(OptionalInt.of(2), cluster.awaitExit(2, Duration.ofSeconds(60)),
                    "the old build refuses a log at wire version 2 (exit status 2)");
            String err = Files.readString(Path.of("target", "child-logs", cluster.group() + "-r2.err"));
            assertTrue((err.contains("cannot follow its group") || err.contains("cannot join its group"))
                    && err.contains("wire version 2") && err.contains("this build speaks wire version 1"),
                    "the refusal names both versions: " + tail(err));
            cluster.build(2, next.toString());
            cluster.restart(2, List.of());
            load.awaitMore(100, "r2 back on the new build");
        }
        // a replica of the old build cannot join any more: refused, naming both versions, and never started again
        int old = cluster.add(List.of());
        OptionalInt refused = cluster.awaitExit(old, Duration.ofSeconds(60));
        assertEquals(OptionalInt.of(2), refused, "an old build is refused (exit status 2)");
        String err = Files.readString(Path.of("target", "child-logs", cluster.group() + "-r" + old + ".err"));
        assertTrue(err.contains("the group speaks wire version 2") || err.contains("is of wire version 2")
                || err.contains("moved to wire version 2"), "the refusal names the group's version: " + tail(err));
        assertTrue(err.contains("this build speaks wire version 1"), "and the build's: " + tail(err));
        load.awaitMore(100, "after the refusal");
        int acked = load.finish();
        System.out.printf("rolling upgrade, wire 1 -> 2 (%s, %s): %d increments, longest time without an answer %d ms%n",
                binding, durability, acked, load.longestGap.get() / 1_000_000);
        for (int i : List.of(0, 1, 2)) {
            assertEquals(acked, at(i).value(), "r" + i + "'s counter = acknowledged increments");
        }
        cluster.awaitEqualDigests(List.of(0, 1, 2), Duration.ofSeconds(30));
    }

    private void assertWire(List<Integer> replicas, String wire, String when) {
        for (int i : replicas) {
            assertEquals(wire, status(i).get("wire"), "r" + i + "'s group wire version: " + when);
        }
    }

    private Map<String, String> status(int i) {
        Map<String, String> s = cluster.probe(i, "fts", 5_000);
        return s == null ? Map.of() : s;
    }

    private Counter at(int i) {
        return CounterHelper.narrow(plain.string_to_object(
                Clients.corbaloc("127.0.0.1", cluster.ports().get(i), cluster.group(), "counter")));
    }

    private static String tail(String s) {
        return s.length() <= 3000 ? s : s.substring(s.length() - 3000);
    }

    /**
     * The second artifact: this build's {@code fts-gc-interface} (the jar or classes the test runs with), every entry
     * copied, with {@link WireVersion#RESOURCE} saying {@code lowest=1 highest=2}.
     */
    static Path nextBuild() throws IOException, URISyntaxException {
        Path from = Path.of(WireVersion.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Path jar = Path.of("target", "wire-next", "fts-gc-interface-wire2.jar").toAbsolutePath();
        Files.createDirectories(jar.getParent());
        String resource = WireVersion.RESOURCE.substring(1);
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
            if (Files.isDirectory(from)) {
                try (Stream<Path> files = Files.walk(from)) {
                    for (Path f : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
                        String name = from.relativize(f).toString().replace('\\', '/');
                        if (!name.equals(resource)) {
                            put(out, name, Files.readAllBytes(f));
                        }
                    }
                }
            } else {
                try (JarFile in = new JarFile(from.toFile())) {
                    for (JarEntry e : java.util.Collections.list(in.entries())) {
                        if (!e.isDirectory() && !e.getName().equals(resource)) {
                            put(out, e.getName(), in.getInputStream(e).readAllBytes());
                        }
                    }
                }
            }
            put(out, resource, "# the next release: wire version 2 (a checksum on every batch)\nlowest=1\nhighest=2\n"
                    .getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }
        return jar;
    }

    private static void put(JarOutputStream jar, String name, byte[] bytes) throws IOException {
        jar.putNextEntry(new JarEntry(name));
        jar.write(bytes);
        jar.closeEntry();
    }
}
