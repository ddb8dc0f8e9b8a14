package org.fts.replica;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

import org.fts.config.ConfigException;
import org.fts.process.ChildJvm;
import org.fts.process.Ports;
import org.junit.jupiter.api.Test;

/**
 * The runner's exit status says whether starting it again can help: 2 when it refuses (a key with a bad value, or
 * settings that differ from the serving group's: the cause is a {@link ConfigException}), which the shipped systemd
 * unit does not restart ({@code RestartPreventExitStatus=2}); 1 for any other failed start, such as a port another
 * process holds, which a restart may get past. Each child JVM is the real runner, reaped by its PID.
 */
class ReplicaRunnerExitTest {
    private static final Path LOGS = Path.of("target", "child-logs");

    /** A one-replica group's configuration on {@code port}, with {@code extra} lines. */
    private static Path config(int port, String... extra) throws Exception {
        String group = "exit-" + UUID.randomUUID().toString().substring(0, 6);
        StringBuilder b = new StringBuilder();
        b.append("OAIAddr=127.0.0.1\nOAPort=").append(port).append('\n');
        b.append("fts.group=").append(group).append("\nfts.replica.id=r0\n");
        b.append("fts.replicas=127.0.0.1:").append(port).append("\nfts.group.size=1\n");
        b.append("fts.jgroups.mcast_port=").append(Ports.freeUdp()).append("\nfts.jgroups.probe=false\n");
        for (String line : extra) {
            b.append(line).append('\n');
        }
        Files.createDirectories(LOGS);
        Path file = Files.createTempFile(LOGS, group, ".properties");
        Files.writeString(file, b.toString());
        return file;
    }

    private static int exitOf(String name, Path config) throws Exception {
        try (ChildJvm replica = ChildJvm.start(name, ReplicaRunner.class, List.of("-Xmx256m",
                "-Djava.net.preferIPv4Stack=true"), List.of("--config", config.toString()), LOGS, line -> { })) {
            assertTrue(replica.waitFor(Duration.ofSeconds(60)), name + " ended by itself");
            return replica.exitValue();
        }
    }

    @Test
    void aKeyWithABadValueIsARefusalThatNoRestartHelps() throws Exception {
        int exit = exitOf("exit-bad-key", config(Ports.free("127.0.0.1"), "fts.delivery=sometimes"));
        String log = Files.readString(LOGS.resolve("exit-bad-key.err"));
        assertEquals(ReplicaRunner.REFUSED, exit, log);
        assertTrue(log.contains("fts.delivery") && log.contains("refused to start"), log);
    }

    @Test
    void aPortAnotherProcessHoldsIsAFailureARestartMayGetPast() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"))) {
            int exit = exitOf("exit-port-taken", config(taken.getLocalPort()));
            String log = Files.readString(LOGS.resolve("exit-port-taken.err"));
            assertEquals(ReplicaRunner.FAILED, exit, log);
            assertTrue(log.contains("failed to start") && log.contains("cannot listen on 127.0.0.1:"
                    + taken.getLocalPort()), log);
        }
    }

    @Test
    void aMissingConfigurationFileIsARefusal() throws Exception {
        int exit = exitOf("exit-no-config", LOGS.resolve("no-such.properties"));
        String log = Files.readString(LOGS.resolve("exit-no-config.err"));
        assertEquals(ReplicaRunner.REFUSED, exit, log);
        assertTrue(log.contains("no-such.properties") && log.contains("refused to start"), log);
    }

    @Test
    void theStatusFollowsTheCauseChain() {
        org.omg.CORBA.INITIALIZE refused = new org.omg.CORBA.INITIALIZE("settings differ");
        refused.initCause(new ConfigException("fts.delivery", "differs across the group"));
        assertEquals(ReplicaRunner.REFUSED, ReplicaRunner.exitStatus(refused));
        assertEquals(ReplicaRunner.FAILED, ReplicaRunner.exitStatus(new org.omg.CORBA.INITIALIZE("no state in time")));
        assertEquals(ReplicaRunner.FAILED, ReplicaRunner.exitStatus(new java.io.IOException("address in use")));
        // JacORB's report of an initializer's exception: only its message carries it
        assertEquals(ReplicaRunner.REFUSED, ReplicaRunner.exitStatus(new org.omg.CORBA.INITIALIZE(
                new ConfigException("fts.delivery", "has value 'sometimes'").toString())));
        assertEquals(ReplicaRunner.FAILED, ReplicaRunner.exitStatus(new org.omg.CORBA.INITIALIZE(
                new org.fts.config.ListenFailure("fts.iiop.port", "is 1, but ...", null).toString())));
    }
}
